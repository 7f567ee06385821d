import type { CompactedReport, CompactionReport } from "../../src/engine/report.js";

/** The report narrowed to a written compaction; any other outcome fails the test with its reason. */
export function compacted(report: CompactionReport | undefined): CompactedReport {
  if (report?.status !== "compacted")
    throw new Error(`expected a compaction, got ${report?.status ?? "no report"}: ${report?.reason ?? ""}`);
  return report;
}
