/**
 * `langgraph-compaction/middleware`: compaction inside a `createAgent` graph (needs the `langchain` package). The
 * node / `preModelHook` form, for createReactAgent, createSupervisor and StateGraphs, is in the main entry point.
 */
// The SQLite and Postgres backends, registered for every saver of theirs (store/all-backends.ts).
import "./store/all-backends.js";
export { compactionMiddleware, type CompactionMiddlewareOptions } from "./runtimes/in-graph/compaction-middleware.js";
export type { InGraphOptions, InGraphCompactionEvent } from "./runtimes/in-graph/in-graph-compactor.js";
