/**
 * `compactThreads(checkpointer, options)`: one-off compaction of many threads (a migration, a nightly job) with the
 * worker's machinery — each thread over the limit compacted by the engine under its lease, so it can run beside
 * workers and the application; `concurrency` threads at once; stopped by `signal` between threads.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { LeasedCompactor, type ThreadOutcome } from "./leased-compactor.js";
import { COMPACT_THREADS_OPTIONS, WORKER_OPTIONS, type CompactThreadsOptions } from "./worker-options.js";

export type { CompactThreadsOptions } from "./worker-options.js";

export interface CompactThreadsResult {
  /** One per thread attempted, in order of completion. */
  outcomes: ThreadOutcome[];
  compacted: number;
  skipped: number;
  failed: number;
  /** Threads not attempted: the signal aborted, or the store failed (`storeError`). */
  notAttempted: number;
  /** The store's failure that stopped the run, if one did. */
  storeError?: unknown;
}

/**
 * @throws CompactionError INVALID_ARGUMENT for a bad option (the wrapper's errors for the shared ones), and the
 *   store's errors when its threads cannot be listed.
 */
export async function compactThreads(
  checkpointer: BaseCheckpointSaver,
  options: CompactThreadsOptions,
): Promise<CompactThreadsResult> {
  const { threads, signal, onProgress } = options;
  let done = 0;
  let total = 0;
  const compactor = new LeasedCompactor(
    checkpointer,
    {
      ...options,
      onOutcome: (outcome) => {
        options.onOutcome?.(outcome);
        onProgress?.({ done: ++done, total, outcome });
      },
    },
    "compactThreads",
    COMPACT_THREADS_OPTIONS as unknown as typeof WORKER_OPTIONS,
  );
  const ids = threads ? [...threads] : (await compactor.store.listThreads()).map((row) => row.threadId);
  total = ids.length;
  const { outcomes, storeError } = await compactor.run(ids, signal ? { signal } : {});
  const count = (status: ThreadOutcome["status"]) => outcomes.filter((outcome) => outcome.status === status).length;
  return {
    outcomes,
    compacted: count("compacted"),
    skipped: count("skipped"),
    failed: count("failed"),
    notAttempted: ids.length - outcomes.length,
    ...(storeError === undefined ? {} : { storeError }),
  };
}
