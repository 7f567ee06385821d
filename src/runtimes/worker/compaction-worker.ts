/**
 * The worker runtime: compaction of many threads from outside the application, as jobs on pg-boss in the store's
 * Postgres database — as many processes on as many machines as you start, `concurrency` jobs at a time in each.
 *
 * A thread's job compacts it once its head has not moved for `idleMs` (`HistoryManager.compactThread`, which leaves
 * busy and interrupted threads alone, then the prune with `keepCheckpoints`); a thread busy, not idle yet or whose
 * compaction lost to a turn gets its job again for later. Jobs come from each process's sweep of the store every
 * `pollMs`: an indexed query for the threads whose head changed, one job each (the job counts the thread; one under
 * the limit is done), and the compactions a run superseded, found from the store, reported and deleted. pg-boss keeps one queued and one active job per thread, retries a failed job, and gives a job whose
 * worker died to another once `jobTimeoutMs` has passed; the store's compare-and-swap stays the fence.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { isStoreFailure } from "../../errors.js";
import { HistoryManager } from "../../engine/history-manager.js";
import { BUSY_WAIT_MS, SUMMARY_TIMEOUT_MS } from "../../engine/manager-options.js";
import type { CompactionPolicy } from "../../engine/policy.js";
import { resolveSettings } from "../../engine/settings.js";
import { checkpointTime } from "../../store/checkpoint-time.js";
import { pause } from "../../pause.js";
import { threadStoreFor, type ThreadStore } from "../../store/thread-store.js";
import { compactOne } from "./compact-one.js";
import { openQueue, sendCompaction, type CompactionJob, type JobQueue } from "./compaction-queue.js";
import { StoreSweep } from "./store-sweep.js";
import {
  COMPACTION_WORKER_OPTIONS,
  type CompactionWorkerOptions,
  type RunOnceSummary,
  type ThreadOutcome,
  type WorkerStats,
} from "./worker-options.js";

export type {
  CompactionWorkerOptions,
  JobEvent,
  RunOnceSummary,
  SkipKind,
  ThreadOutcome,
  WorkerStats,
} from "./worker-options.js";

/** The longest wait of a lane for its next job when none was due (ms; `pollMs` when shorter). */
const IDLE_FETCH_MS = 500;
/**
 * When the worker writes a compaction (engine/manager-options.ts: WriteWindow): within 50 ms of a turn's end, or after
 * a second of quiet. A turn that had read the head just before the write would otherwise supersede it: with 100 ms
 * between 8 threads' turns, 46 of 85 writes were superseded (p95 of the model's input 1.8-3.5x the limit); written
 * so, 0-4 of about 75 (p95 1.09-1.56x over runs and latencies; docs/deploying.md).
 */
const WRITE_WINDOW = { freshMs: 50, quietMs: 1_000 };
/** The soonest a busy thread's job runs again (ms; `idleMs` when longer). */
const BUSY_RETRY_MS = 100;

export class CompactionWorker {
  private readonly manager: HistoryManager;
  private readonly store: ThreadStore;
  private readonly idleMs: number;
  private readonly pollMs: number;
  private readonly jobTimeoutMs: number;
  private readonly concurrency: number;
  /** The threads whose job runs in this process now. */
  private readonly active = new Set<string>();
  private readonly sweeper: StoreSweep;
  private readonly counters: WorkerStats = { sweeps: 0, jobs: 0, compacted: 0, superseded: 0, skipped: {}, errors: 0 };
  private opened?: Promise<JobQueue>;
  private readonly stopping = new AbortController();
  /** The lanes and the sweeps of `start()`. */
  private running?: Promise<void>;
  /** The store's failure that ends `runOnce`'s lanes. */
  private storeFailure?: unknown;

  /** @throws CompactionError INVALID_ARGUMENT for a bad option (the wrapper's errors for the shared ones). */
  constructor(
    checkpointer: BaseCheckpointSaver,
    private readonly options: CompactionWorkerOptions,
  ) {
    const settings = resolveSettings("CompactionWorker", COMPACTION_WORKER_OPTIONS, options, { requireTrigger: true });
    this.manager = HistoryManager.of({
      ...settings,
      store: threadStoreFor(checkpointer, { recallLanguage: settings.recall.language }),
      writeWindow: WRITE_WINDOW,
    });
    this.store = this.manager.store;
    this.idleMs = options.idleMs ?? 60_000;
    this.pollMs = options.pollMs ?? 5_000;
    this.concurrency = options.concurrency ?? 1;
    this.jobTimeoutMs = options.jobTimeoutMs ?? 2 * (settings.summarizer.timeoutMs ?? SUMMARY_TIMEOUT_MS);
    this.sweeper = new StoreSweep(this.store, this.idleMs, (outcome) => {
      this.counters.superseded++;
      options.onOutcome?.(outcome);
    });
  }

  /** The resolved compaction policy (limits in tokens, the cut, the summary's budget), as every runtime resolves it. */
  get policy(): CompactionPolicy {
    return this.manager.policy;
  }

  /** This process's counters, for a metrics endpoint. */
  stats(): WorkerStats {
    return { ...this.counters, skipped: { ...this.counters.skipped } };
  }

  /**
   * Sends `threadId` a job (a deployment that knows a thread needs one): absorbed when one is queued already.
   * @throws CompactionError UNSUPPORTED for a store other than Postgres; MISSING_DEPENDENCY without pg-boss.
   */
  async request(threadId: string): Promise<void> {
    await sendCompaction(await this.queue(), threadId);
  }

  /**
   * Runs jobs until `stop()`, `concurrency` at a time, and sweeps the store every `pollMs`. Resolves once the queue
   * is reached and the jobs are being taken.
   * @throws CompactionError UNSUPPORTED for a store other than Postgres; MISSING_DEPENDENCY without pg-boss.
   */
  async start(): Promise<void> {
    const queue = await this.queue();
    if (this.running || this.stopping.signal.aborted) return;
    const { signal } = this.stopping;
    const sweeping = (async () => {
      while (!signal.aborted) {
        await this.sweep(queue).catch((error: unknown) => this.failed(error));
        await pause(this.pollMs, signal);
      }
    })();
    const lanes = Array.from({ length: this.concurrency }, () =>
      this.lane(queue, false).catch((error: unknown) => this.failed(error)),
    );
    this.running = Promise.all([sweeping, ...lanes]).then(() => undefined);
  }

  /**
   * One sweep, then every job due now run in this process, `concurrency` at a time, until none is left: what
   * `compact-thread watch --once` does. Call `stop()` after it.
   * @throws CompactionError STORE_UNAVAILABLE (and the store's other errors) when the store cannot be swept, or fails
   *   under a job (no job is taken after that one).
   */
  async runOnce(): Promise<RunOnceSummary> {
    const started = performance.now();
    const queue = await this.queue();
    const before = this.stats();
    const { changed, superseded } = await this.sweep(queue);
    const outcomes = (await Promise.all(Array.from({ length: this.concurrency }, () => this.lane(queue, true)))).flat();
    const count = (status: ThreadOutcome["status"]) => outcomes.filter((outcome) => outcome.status === status).length;
    return {
      changed,
      jobs: this.counters.jobs - before.jobs,
      compacted: count("compacted"),
      skipped: count("skipped"),
      failed: count("failed"),
      superseded,
      ms: performance.now() - started,
    };
  }

  /**
   * Stops taking jobs and abandons the summaries in flight (nothing written; their jobs go back to the queue for
   * another worker); resolves once the jobs in flight have ended. A write already under way finishes (it takes
   * milliseconds). A stopped worker does not start again.
   */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
    const queue = await this.opened?.catch(() => undefined);
    await queue?.boss.stop({ graceful: false, close: false });
  }

  /**
   * Takes the queue's due jobs one after another, each completed or failed (pg-boss retries it); with none due, waits
   * (or, `once`, ends). A store failure under a job ends a `once` lane by throwing it; a running lane backs off.
   */
  private async lane(queue: JobQueue, once: boolean): Promise<ThreadOutcome[]> {
    const { boss } = queue;
    const { signal } = this.stopping;
    const outcomes: ThreadOutcome[] = [];
    while (!signal.aborted && !(once && this.storeFailure !== undefined)) {
      const [job] = await boss.fetch<CompactionJob>(queue.compaction);
      if (!job) {
        if (once) break;
        await pause(Math.min(this.pollMs, IDLE_FETCH_MS), signal);
        continue;
      }
      try {
        outcomes.push(await this.runJob(queue, job, () => boss.complete(queue.compaction, job.id)));
      } catch (error) {
        outcomes.push({ threadId: job.data.threadId, status: "failed", reason: String(error), error });
        await boss.fail(queue.compaction, job.id, { reason: String(error) }).catch(() => undefined);
        if (!isStoreFailure(error)) continue;
        // The store failing: a `once` run stops (its error thrown); a running worker waits before its next job.
        if (once) this.storeFailure ??= error;
        else await pause(IDLE_FETCH_MS, signal);
      }
    }
    if (once && this.storeFailure !== undefined)
      throw this.storeFailure instanceof Error ? this.storeFailure : new Error(String(this.storeFailure));
    return outcomes;
  }

  private queue(): Promise<JobQueue> {
    this.opened ??= openQueue(
      this.store,
      { schema: this.options.queueSchema ?? "pgboss", jobTimeoutMs: this.jobTimeoutMs },
      (error) => this.failed(error),
    );
    return this.opened;
  }

  private failed(error: unknown): void {
    this.counters.errors++;
    this.options.onError?.(error);
  }

  /**
   * A thread's job: compacted once idle; sent again for later, once this job has ended, when the thread is not idle
   * yet, busy, or its compaction lost to a turn (a job queued while its thread's job runs would hold back the jobs
   * queued after it: pg-boss's `stately` policy). Throws (pg-boss retries the job) when the compaction failed or was
   * stopped.
   */
  private async runJob(
    queue: JobQueue,
    job: { id: string; data: CompactionJob },
    complete: () => Promise<unknown>,
  ): Promise<ThreadOutcome> {
    const { threadId } = job.data;
    this.counters.jobs++;
    this.active.add(threadId);
    this.options.onJob?.({ threadId, jobId: job.id, event: "started" });
    let outcome: ThreadOutcome | undefined;
    let again: Date | undefined;
    try {
      ({ outcome, again } = await this.compactIfIdle(threadId));
      this.count(outcome);
      this.options.onOutcome?.(outcome);
      if (outcome.status === "failed") throw outcome.error;
      if (outcome.skip === "stopped") throw new Error(outcome.reason);
      await complete();
      return outcome;
    } finally {
      this.active.delete(threadId);
      this.options.onJob?.({ threadId, jobId: job.id, event: "ended", status: outcome?.status ?? "failed" });
      if (again) await sendCompaction(queue, threadId, again);
    }
  }

  private async compactIfIdle(threadId: string): Promise<{ outcome: ThreadOutcome; again?: Date }> {
    const headId = await this.store.readHeadId(threadId);
    if (headId === undefined)
      return {
        outcome: { threadId, status: "skipped", reason: "the thread has no checkpoint", skip: "nothing to compact" },
      };
    const idleAt = (checkpointTime(headId) ?? 0) + this.idleMs;
    if (idleAt > Date.now())
      return {
        outcome: { threadId, status: "skipped", reason: "its head moved within idleMs", skip: "not idle", headId },
        again: new Date(idleAt),
      };
    // Stopped before pg-boss would give the job to another worker: two never run one thread at once.
    const signal = AbortSignal.any([this.stopping.signal, AbortSignal.timeout(Math.floor(this.jobTimeoutMs * 0.9))]);
    // A summary made waits for its moment to be written (WRITE_WINDOW) within a quarter of the job's time.
    const busyWaitMs = Math.min(BUSY_WAIT_MS, Math.floor(this.jobTimeoutMs / 4));
    const outcome = await compactOne(this.manager, threadId, { signal, busyWaitMs });
    if (outcome.status === "compacted") this.sweeper.wrote(threadId, outcome.checkpointId!);
    const busy = outcome.skip === "busy" || outcome.skip === "conflict";
    return busy ? { outcome, again: new Date(Date.now() + Math.max(this.idleMs, BUSY_RETRY_MS)) } : { outcome };
  }

  private count(outcome: ThreadOutcome): void {
    if (outcome.status === "compacted") this.counters.compacted++;
    else if (outcome.status === "skipped") {
      const kind = outcome.skip!;
      this.counters.skipped[kind] = (this.counters.skipped[kind] ?? 0) + 1;
    }
  }

  private async sweep(queue: JobQueue): Promise<{ changed: number; superseded: number }> {
    const swept = await this.sweeper.run(queue, this.active);
    this.counters.sweeps++;
    return swept;
  }
}
