/**
 * langgraph-compaction: the public names (see the README). Backends and providers have their own entry points,
 * loaded only by those who use them: `langgraph-compaction/sqlite` (SqliteStore) and `langgraph-compaction/openai`
 * (createOpenAISummarizer).
 */
export { CompactionError, type CompactionErrorCode, type CompactionErrorOptions } from "./errors.js";

export { TokenCounter, type TokenCounterOptions, type CountMessagesOptions } from "./tokens/token-counter.js";
export { resolveModel, getContextWindow, resolveTokenLimit, DEFAULT_MODEL, type EncodingName, type ModelInfo } from "./tokens/models.js";
export type { EngineName } from "./tokens/engines.js";
export type { OpenAIToolDefinition, ToolDefinitionLike } from "./tokens/tool-definitions.js";

export {
  HistoryManager,
  type HistoryManagerOptions,
  type CompactOverrides,
  type CompactedMessages,
  type RecallOptions,
  type PrepareOptions,
  type PreparedCompaction,
} from "./history/history-manager.js";
export type { ThreadHead, StateReader } from "./history/thread-state.js";
export { planCompaction, DEFAULT_COMPACTION_RATIO, type CompactionPlan, type PlanOptions } from "./history/plan.js";
export type { CompactionReport, CompactedReport, SkippedReport, ConflictReport } from "./history/report.js";
export { auditThread, type ThreadAudit, type AuditProblem, type AuditProblemCode } from "./history/audit.js";
export { validateHistory, type HistoryProblem, type HistoryProblemCode } from "./messages/validate.js";
export type { MessageUnit, UnitKind } from "./messages/units.js";
export { isSummaryMessage, getSummaryProvenance, type SummaryProvenance, type SummaryRole } from "./messages/summary-message.js";

export { ExtractiveSummarizer, type ExtractiveSummarizerOptions } from "./summarizers/extractive.js";
export { LlmSummarizer, type LlmSummarizerOptions } from "./summarizers/llm.js";
export { createDefaultSummarizer } from "./summarizers/default.js";
export type { Summarizer, SummarizeInput } from "./summarizers/types.js";

export { CompactingSupervisor, COMPACTION_EVENT, type CompactableGraph } from "./supervisor/compacting-supervisor.js";
export type { CompactingSupervisorOptions, CircuitBreakerOptions, ResolvedOptions } from "./supervisor/options.js";
export type { CompactionHealth } from "./supervisor/compacting-supervisor.js";
export type { TokenStreamEvent } from "./supervisor/token-events.js";
export { isContextOverflowError } from "./supervisor/overflow.js";
export {
  createStrategy,
  listStrategies,
  createPipeline,
  pinMessage,
  isPinned,
  type Strategy,
  type StrategyContext,
  type StrategyReport,
  type StrategyResult,
  type StrategyInput,
  type StrategyName,
  type StrategyOptions,
  type PinPredicate,
  type EditRecord,
} from "./strategies/index.js";
export { createContextTrimHook, createCompactionHook, type ContextTrimHookOptions, type CompactionHookOptions } from "./strategies/context-trim-hook.js";
export { ToolOutputArchive, ARCHIVE_READER_TOOL, type ArchiveOptions, type ArchivedOutput, type ArchiveResult } from "./archive/archive.js";
export { createArchiveReaderTool, type ArchiveReaderOptions } from "./archive/reader-tool.js";
export { searchHistory, type SearchHistoryOptions, type RecallBackend, type RecallBackendOptions } from "./recall/search.js";
export type { ClearToolResultsOptions } from "./strategies/clear-tool-results.js";
export type { SlidingWindowOptions } from "./strategies/sliding-window.js";
export type { SmartTrimOptions } from "./strategies/smart-trim.js";
export type { SummarizeOptions } from "./strategies/summarize.js";
export { reindexThread, type ReindexReport } from "./recall/reindex.js";
export { createHistorySearchTool, HISTORY_SEARCH_TOOL, type HistorySearchToolOptions } from "./recall/tool.js";
export type { SearchHit, RecallMessage, RecallEntry } from "./checkpoint/recall-index/types.js";
