/** The wrapper: the public names of supervisor/. */
export { CompactingSupervisor, COMPACTION_EVENT, type CompactableGraph, type CompactionHealth } from "./compacting-supervisor.js";
export type { CompactingSupervisorOptions, CircuitBreakerOptions, ResolvedOptions } from "./options.js";
export type { TokenStreamEvent } from "./token-events.js";
export { isContextOverflowError } from "./overflow.js";
