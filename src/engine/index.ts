/** Reading, planning, summarizing and writing a thread: the public names of history/. */
export {
  HistoryManager,
  type HistoryManagerOptions,
  type CompactOverrides,
  type CompactedMessages,
  type RecallOptions,
  type PrepareOptions,
  type PreparedCompaction,
} from "./history-manager.js";
export type { ThreadHead, StateReader } from "../store/read-head.js";
export { planCompaction, DEFAULT_COMPACTION_RATIO, type CompactionPlan, type PlanOptions } from "./plan.js";
export type { CompactionReport, CompactedReport, SkippedReport, ConflictReport } from "./report.js";
export { auditThread, type ThreadAudit, type AuditProblem, type AuditProblemCode } from "./audit.js";
