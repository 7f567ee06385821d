/**
 * Where compaction news goes: the caller's hooks (`onCompaction`, `onCompactionError`), the engine's notices
 * (process warnings: engine/notices.ts) and, for a landed compaction, the run's LangChain
 * callbacks as a custom event (tracing tools show it). A hook that throws never breaks the caller's turn: its error
 * goes to `onCompactionError`, whose own errors are dropped. Without `onCompactionError`, the first failure is a
 * notice (COMPACTION_FAILING, a process warning by default): compaction that keeps failing is never silent.
 */
import { dispatchCustomEvent } from "@langchain/core/callbacks/dispatch";
import { RunnableLambda } from "@langchain/core/runnables";
import type { Notices } from "../../engine/notices.js";
import type { CompactedReport, CompactionReport } from "../../engine/report.js";
import type { CompactingSupervisorOptions } from "./options.js";

/** The custom event name under which compactions reach LangChain callbacks (tracing tools show it). */
export const COMPACTION_EVENT = "langgraph_compaction";

/** A traced run named "compaction" that carries the report as a custom event. */
const dispatchCompaction = RunnableLambda.from(async (report: CompactedReport, config) => {
  await dispatchCustomEvent(COMPACTION_EVENT, report, config);
  return report;
});

export type CompactionHooks = Pick<CompactingSupervisorOptions, "onCompaction" | "onCompactionError">;

export class CompactionEvents {
  constructor(
    private readonly hooks: CompactionHooks,
    private readonly notices: Notices,
  ) {}

  /** A compaction's outcome: `onCompaction`; one that landed, the run's callbacks too. */
  async outcome(report: CompactionReport, config: object): Promise<void> {
    const callbacks = (config as { callbacks?: unknown }).callbacks;
    try {
      await this.hooks.onCompaction?.(report);
    } catch (error) {
      await this.error(error, report.threadId);
    }
    if (callbacks && report.status === "compacted") {
      await dispatchCompaction
        .invoke(report, { callbacks: callbacks as never, runName: "compaction", tags: ["langgraph-compaction"] })
        .catch(() => undefined);
    }
  }

  async error(error: unknown, threadId?: string): Promise<void> {
    if (!this.hooks.onCompactionError) {
      this.notices.once({
        code: "COMPACTION_FAILING",
        error,
        message: `a compaction${threadId === undefined ? "" : ` of thread ${JSON.stringify(threadId)}`} failed and nothing was written: ${error instanceof Error ? error.message : String(error)}. Pass onCompactionError to hear every failure.`,
      });
      return;
    }
    try {
      await this.hooks.onCompactionError(error, { threadId });
    } catch {
      // A failing error hook must never break the caller's turn.
    }
  }
}
