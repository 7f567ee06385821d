/**
 * `langgraph-compaction/internal`: building blocks of the library for tools built on it — the planner, the history
 * check, model tables, the transcript's namespace, constants. No stability promise: a minor version may change them.
 * Nothing here writes a checkpoint; the store seam (the compare-and-swap under the engine's validation and lock) is
 * not exported at all.
 */
// The SQLite and Postgres backends, registered for every saver of theirs (store/all-backends.ts).
import "./store/all-backends.js";
export { planCompaction, DEFAULT_COMPACTION_RATIO } from "./engine/plan.js";
export { DEFAULT_KEEP_CHECKPOINTS } from "./engine/options.js";
export { validateHistory, type HistoryProblem, type HistoryProblemCode } from "./messages/validate.js";
export type { MessageUnit, UnitKind } from "./messages/units.js";
export type { EditRecord } from "./messages/markers.js";
export { isPinned } from "./messages/pins.js";
export { resolveModel, DEFAULT_MODEL, type ModelInfo } from "./tokens/models.js";
export { createDefaultSummarizer } from "./summarizers/default.js";
export { TRANSCRIPT_NAMESPACE, transcriptNamespace } from "./store/recall-index/base-store-index.js";
export { transcriptHome, type TranscriptPlaces } from "./store/transcript-home.js";
export type { ThreadHead } from "./store/read-head.js";
export type { MessagesStorage } from "./store/checkpoint-messages.js";
export { reciprocalRankFusion } from "./recall/semantic.js";
export { HISTORY_SEARCH_TOOL } from "./recall/tool.js";
export { ARCHIVE_READER_TOOL } from "./archive/archive.js";
export { COMPACTION_EVENT } from "./runtimes/wrapper/compacting-supervisor.js";
