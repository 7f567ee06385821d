/**
 * `compactThreads(checkpointer, options)`: one-off compaction of many threads (a migration, a nightly job) —
 * each thread over the limit compacted by the engine, `concurrency` threads at once, stopped by `signal` between
 * threads. It can run beside workers and the application: the store's compare-and-swap lets one write land on a head.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { isStoreFailure } from "../../errors.js";
import { HistoryManager } from "../../engine/history-manager.js";
import { resolveSettings } from "../../engine/settings.js";
import { threadStoreFor } from "../../store/thread-store.js";
import { compactOne } from "./compact-one.js";
import { COMPACT_THREADS_OPTIONS, type CompactThreadsOptions, type ThreadOutcome } from "./worker-options.js";

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
  const { threads, signal, onProgress, concurrency = 1 } = options;
  const settings = resolveSettings("compactThreads", COMPACT_THREADS_OPTIONS, options, { requireTrigger: true });
  const manager = HistoryManager.of({
    ...settings,
    store: threadStoreFor(checkpointer, { recallLanguage: settings.recall.language }),
  });
  const ids = threads ? [...threads] : (await manager.store.listThreads()).map((row) => row.threadId);
  const outcomes: ThreadOutcome[] = [];
  let storeError: unknown;
  let next = 0;
  const lane = async () => {
    while (!signal?.aborted && storeError === undefined && next < ids.length) {
      const outcome = await compactOne(manager, ids[next++]!, signal ? { signal } : {});
      if (outcome.status === "failed" && isStoreFailure(outcome.error)) storeError = outcome.error;
      outcomes.push(outcome);
      onProgress?.({ done: outcomes.length, total: ids.length, outcome });
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, ids.length) }, lane));
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
