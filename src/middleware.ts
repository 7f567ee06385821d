/**
 * `langgraph-compaction/middleware`: compaction inside a `createAgent` graph (needs the `langchain` package).
 */
export { compactionMiddleware, type CompactionMiddlewareOptions } from "./runtimes/in-graph/compaction-middleware.js";
