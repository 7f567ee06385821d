/**
 * Where the wrapper's summaries are computed and written: in the library's compaction workers when the thread's store
 * can be opened a second time (a SQLite file, Postgres by its connection string) and every part of the engine can cross to a worker (the default
 * offline summarizer, no custom pins function, no strategy), else on the application's thread by its HistoryManager.
 * Either way the same engine and policy: the worker builds it from the same resolved settings.
 */
import type { HistoryManager, PreparedCompaction } from "../../engine/history-manager.js";
import type { CompactionReport } from "../../engine/report.js";
import { readBackCompaction } from "../../engine/read-back.js";
import { CompactionError } from "../../errors.js";
import type { RemotePrepared, WorkerEngineSettings } from "../offload/protocol.js";
import type { CompactionWorkers } from "../offload/worker-pool.js";

/** A summary computed and ready to apply: held in this process, or in a worker (a handle). */
export type ReadySummary = PreparedCompaction | RemotePrepared;

export interface SummaryRunner {
  /** Whether summaries run in worker threads (until they turn out unable to run here). */
  readonly offloaded: boolean;
  prepare(threadId: string): Promise<ReadySummary | CompactionReport>;
  apply(ready: ReadySummary, busyWaitMs: number): Promise<CompactionReport>;
  /** Lets go of the workers (ended once no other wrapper of the process uses them). */
  close(): Promise<void>;
}

const isRemote = (ready: ReadySummary): ready is RemotePrepared => "handle" in ready;

export function summaryRunner(
  manager: HistoryManager,
  offload?: { workers: CompactionWorkers; release(): Promise<void>; settings: WorkerEngineSettings },
): SummaryRunner {
  if (!offload) {
    return {
      offloaded: false,
      prepare: (threadId) => manager.prepareCompaction({ configurable: { thread_id: threadId } }),
      apply: (ready, busyWaitMs) => manager.applyCompaction(ready as PreparedCompaction, { busyWaitMs }),
      close: async () => undefined,
    };
  }
  const { workers, settings, release } = offload;
  return {
    offloaded: true,
    // The snapshot is the head as the turn left it (its id read here, in microseconds): the worker summarizes that
    // checkpoint even if the application's next turn has started meanwhile, and the write rebases onto it.
    // Where workers cannot run (their module did not load), this and every later compaction runs here instead.
    prepare: async (threadId) => {
      if (!workers.unavailable) {
        try {
          return await workers.prepare(settings, threadId, await manager.store.readHeadId(threadId));
        } catch (error) {
          if (!workers.unavailable) throw error;
        }
      }
      return manager.prepareCompaction({ configurable: { thread_id: threadId } });
    },
    apply: async (ready, busyWaitMs) => {
      if (!isRemote(ready)) return manager.applyCompaction(ready, { busyWaitMs });
      try {
        return await workers.apply(ready, busyWaitMs);
      } catch (error) {
        // A worker that died during the apply may have committed first: what the store holds is the outcome.
        if (CompactionError.isInstance(error) && error.code === "WORKER_FAILED") {
          const landed = await readBackCompaction(manager, ready);
          if (landed) return landed;
        }
        throw error;
      }
    },
    close: release,
  };
}
