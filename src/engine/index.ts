/** The engine — policy, plan, summarize, rebase, write, report — and its public face, HistoryManager. */
export {
  HistoryManager,
  type HistoryManagerOptions,
  type CompactOverrides,
  type CompactedMessages,
  type RecallOptions,
  type PrepareOptions,
  type PreparedCompaction,
} from "./history-manager.js";
export { resolvePolicy, policyFromEnv, type CompactionPolicy, type CompactionPolicyOptions } from "./policy.js";
export { planCompaction, DEFAULT_COMPACTION_RATIO, type CompactionPlan, type PlanOptions } from "./plan.js";
export type { CompactionReport, CompactedReport, SkippedReport, ConflictReport } from "./report.js";
export { auditThread, type ThreadAudit, type AuditProblem, type AuditProblemCode } from "./audit.js";
export { pruneThread, DEFAULT_KEEP_CHECKPOINTS, type PruneOptions, type PruneReport } from "./prune.js";
