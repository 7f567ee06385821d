/** The in-graph runtime without `langchain`: the node / preModelHook form (the middleware has its own entry point). */
export { compactionNode, type CompactionNode, type CompactionNodeOptions, type CompactionNodeUpdate } from "./compaction-node.js";
export { CompactionAgentState, compactionMessagesReducer } from "./messages-reducer.js";
export type { InGraphOptions, InGraphCompactionEvent } from "./in-graph-compactor.js";
