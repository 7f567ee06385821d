/**
 * langgraph-compaction: the public names, grouped by what a user does (README and docs/). Each subpath is loaded only
 * by those who use it: `langgraph-compaction/middleware` (createAgent), `/sqlite` (SqliteStore), `/postgres`,
 * `/openai` (createOpenAISummarizer), `/strategies` (strategies and pipelines), `/testing` (compactionSpec, the
 * scripted model), `/client` (a UI's conversation view) and `/internal` (building blocks without a stability promise).
 */
// The SQLite and Postgres backends, registered for every saver of theirs (store/all-backends.ts).
import "./store/all-backends.js";

// Wrap a compiled graph, or compact inside it, or in the background for a fleet.
export {
  CompactingSupervisor,
  type CompactableGraph,
  type CompactionHealth,
} from "./runtimes/wrapper/compacting-supervisor.js";
export type { CompactingSupervisorOptions, CompactionNotice } from "./runtimes/wrapper/options.js";
export type { TokenStreamEvent } from "./runtimes/wrapper/token-events.js";
export { isContextOverflowError } from "./runtimes/wrapper/overflow.js";
export {
  compactionNode,
  type CompactionNode,
  type CompactionNodeOptions,
  type CompactionNodeUpdate,
} from "./runtimes/in-graph/compaction-node.js";
export { CompactionAgentState, compactionMessagesReducer } from "./runtimes/in-graph/messages-reducer.js";
export type { InGraphOptions, InGraphCompactionEvent } from "./runtimes/in-graph/in-graph-compactor.js";
export {
  CompactionWorker,
  type CompactionWorkerOptions,
  type JobEvent,
  type RunOnceSummary,
  type ThreadOutcome,
  type WorkerStats,
} from "./runtimes/worker/compaction-worker.js";
export {
  compactThreads,
  type CompactThreadsOptions,
  type CompactThreadsResult,
} from "./runtimes/worker/compact-threads.js";

// Compact, prune and audit a stored thread; the policy every runtime follows.
export {
  HistoryManager,
  type HistoryManagerOptions,
  type CompactOverrides,
  type CompactedMessages,
  type RecallOptions,
  type PrepareOptions,
  type PreparedCompaction,
} from "./engine/history-manager.js";
export type { CompactionPolicy } from "./engine/policy.js";
export type { CompactionOptions, ContextSize, TriggerOption } from "./engine/options.js";
export type { CompactionPlan, PlanOptions } from "./engine/plan.js";
export type { CompactionReport, CompactedReport, SkippedReport, ConflictReport } from "./engine/report.js";
export type { SummarizerTokens } from "./engine/summarizer-tokens.js";
export { auditThread, type ThreadAudit, type AuditProblem, type AuditProblemCode } from "./engine/audit.js";
export { pruneThread } from "./engine/prune.js";
export type { PruneOptions, PruneReport } from "./engine/report.js";

// Read and search what compaction took out of the head.
export {
  readTranscript,
  type ReadTranscriptOptions,
  type TranscriptMessage,
  type TranscriptPage,
} from "./recall/transcript.js";
export {
  searchHistory,
  type SearchHistoryOptions,
  type RecallBackendOptions,
  type TranscriptStoreOption,
} from "./recall/search.js";
export { reindexThread, type ReindexReport } from "./recall/reindex.js";
export { createHistorySearchTool, type HistorySearchToolOptions } from "./recall/tool.js";
export type { SemanticRanking } from "./recall/semantic.js";
export type { SearchHit, RecallMessage, RecallEntry } from "./store/recall-index/types.js";

// Count.
export { TokenCounter, type TokenCounterOptions, type CountMessagesOptions } from "./tokens/token-counter.js";
export type { EncodingName } from "./tokens/models.js";
export type { OpenAIToolDefinition, ToolDefinitionLike } from "./tokens/tool-definitions.js";

// Summarize.
export { ExtractiveSummarizer, type ExtractiveSummarizerOptions } from "./summarizers/extractive.js";
export { LlmSummarizer, type LlmSummarizerOptions } from "./summarizers/llm.js";
export type { Summarizer, SummarizeInput, SummarizerUsage } from "./summarizers/types.js";
export type { SummarizerChoice } from "./summarizers/default.js";

// Messages: summaries, pins.
export {
  isSummaryMessage,
  getSummaryProvenance,
  type SummaryProvenance,
  type SummaryRole,
} from "./messages/summary-message.js";
export { pinMessage, type PinPredicate } from "./messages/pins.js";

// Large tool outputs kept out of the head.
export { ToolOutputArchive, type ArchiveOptions, type ArchivedOutput, type ArchiveResult } from "./archive/archive.js";
export { createArchiveReaderTool, type ArchiveReaderOptions } from "./archive/reader-tool.js";

export { CompactionError, type CompactionErrorCode, type CompactionErrorOptions } from "./errors.js";
