/**
 * `compactThreads(checkpointer, options)`: one-off compaction of many threads (a migration, a nightly job) with the
 * worker's machinery — each thread over the limit compacted by the engine under its lease, so it can run beside
 * workers and the application; `concurrency` threads at once; stopped by `signal` between threads.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { invalidArgument } from "../../errors.js";
import { refuseNotTaken, refuseUnknown, validateHooks } from "../../validate-hooks.js";
import { LEASED, NOT_IN_WORKER } from "./worker-options.js";
import { HISTORY_MANAGER_OPTIONS } from "../../engine/manager-option-names.js";
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

export const COMPACT_THREADS_OPTIONS = {
  ...HISTORY_MANAGER_OPTIONS,
  ...LEASED,
  threads: true,
  over: true,
  signal: true,
  onProgress: true,
} as const satisfies Record<keyof CompactThreadsOptions, true>;

/**
 * @throws CompactionError INVALID_ARGUMENT for a bad option (the wrapper's errors for the shared ones), and the
 *   store's errors when its threads cannot be listed.
 */
export async function compactThreads(
  checkpointer: BaseCheckpointSaver,
  options: CompactThreadsOptions,
): Promise<CompactThreadsResult> {
  const { threads, over, signal, onProgress, ...rest } = options;
  if (
    threads !== undefined &&
    (!Array.isArray(threads) || threads.some((thread) => typeof thread !== "string" || thread === ""))
  )
    throw invalidArgument("threads", threads, "an array of thread ids");
  if (over !== undefined && rest.tokenLimit !== undefined)
    throw invalidArgument("over", over, "given without tokenLimit (it is the same setting)");
  refuseNotTaken("the compaction worker", options, NOT_IN_WORKER);
  refuseUnknown("compactThreads", options, COMPACT_THREADS_OPTIONS);
  validateHooks(options, ["onProgress"]);
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
    throw invalidArgument("over", over, "a number of tokens (or tokenLimit): the threads above it are compacted");
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
