/** langgraph-compaction/testing: the behaviour suite to run on your own checkpoint saver (needs vitest). */
export { compactionSpec, type SaverInitializer } from "./compaction-spec.js";
