/**
 * langgraph-compaction: the public names (see the README and docs/), each folder's own index re-exported. Backends and
 * providers have their own entry points, loaded only by those who use them: `langgraph-compaction/sqlite`
 * (SqliteStore), `langgraph-compaction/openai` (createOpenAISummarizer), `langgraph-compaction/testing`
 * (compactionSpec).
 */
export { CompactionError, type CompactionErrorCode, type CompactionErrorOptions } from "./errors.js";
export * from "./tokens/index.js";
export * from "./messages/index.js";
export * from "./summarizers/index.js";
export * from "./store/index.js";
export * from "./engine/index.js";
export * from "./strategies/index.js";
export * from "./archive/index.js";
export * from "./recall/index.js";
export * from "./runtimes/wrapper/index.js";
export * from "./runtimes/in-graph/index.js";
export * from "./runtimes/worker/index.js";
