/** The worker runtime: compaction of many threads from outside the application, over a shared store. */
export { CompactionWorker, type CompactionWorkerOptions, type PassSummary, type ThreadOutcome, type WorkerOptions, type WorkerStats } from "./compaction-worker.js";
export { compactThreads, type CompactThreadsOptions, type CompactThreadsResult } from "./compact-threads.js";
