/** Searching what compaction took out: the public names of recall/. */
export { searchHistory, type SearchHistoryOptions, type RecallBackendOptions, type TranscriptStoreOption } from "./search.js";
export { reindexThread, type ReindexReport } from "./reindex.js";
export { readTranscript, type ReadTranscriptOptions, type TranscriptMessage, type TranscriptPage } from "./transcript.js";
export { reciprocalRankFusion, type SemanticRanking } from "./semantic.js";
export { createHistorySearchTool, HISTORY_SEARCH_TOOL, type HistorySearchToolOptions } from "./tool.js";
export type { SearchHit, RecallMessage, RecallEntry } from "../store/recall-index/types.js";
