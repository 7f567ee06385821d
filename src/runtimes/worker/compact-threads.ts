/**
 * `compactThreads(checkpointer, options)`: one-off compaction of many threads (a migration, a nightly job) with the
 * worker's machinery — each thread over the limit compacted by the engine under its lease, so it can run beside
 * workers and the application; `concurrency` threads at once; stopped by `signal` between threads.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { argument, parseOptions } from "../../options/check.js";
import { COMPACT_THREADS_SCHEMA } from "../../options/runtime-fields.js";
import { absent, number } from "../../options/rules.js";
import { LeasedCompactor, type ThreadOutcome, type WorkerOptions } from "./leased-compactor.js";

export interface CompactThreadsOptions extends WorkerOptions {
  /** The threads to compact. @default every thread of the store */
  threads?: readonly string[];
  /** Compact the threads above this many tokens: the policy's `tokenLimit` under another name (give one of them). */
  over?: number;
  /** Stops taking threads once aborted; the threads in flight finish. */
  signal?: AbortSignal;
  /** Told after each thread: how many are done of how many, and its outcome. */
  onProgress?: (progress: { done: number; total: number; outcome: ThreadOutcome }) => void;
}

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
  const { threads, over, signal, onProgress, ...rest } = options;
  parseOptions("compactThreads", COMPACT_THREADS_SCHEMA, options);
  if (rest.tokenLimit !== undefined)
    argument("over", over, absent("given without tokenLimit (it is the same setting)"));
  let done = 0;
  let total = 0;
  const compactor = new LeasedCompactor(checkpointer, {
    ...rest,
    ...(over === undefined ? {} : { tokenLimit: over }),
    onOutcome: (outcome) => {
      rest.onOutcome?.(outcome);
      onProgress?.({ done: ++done, total, outcome });
    },
  });
  if (compactor.manager.policy.tokenLimit === undefined)
    argument("over", over, number("a number of tokens (or tokenLimit): the threads above it are compacted"));
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
