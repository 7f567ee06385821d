/** The wrapper runtime: the public names of runtimes/wrapper/. */
export { CompactingSupervisor, COMPACTION_EVENT, type CompactableGraph, type CompactionHealth } from "./compacting-supervisor.js";
export type { CompactingSupervisorOptions, CircuitBreakerOptions, CompactionNotice } from "./options.js";
export type { TokenStreamEvent } from "./token-events.js";
export { isContextOverflowError } from "./overflow.js";
