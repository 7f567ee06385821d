/**
 * What a worker takes (its options: the shared vocabulary, engine/options.ts, and the worker's own, one schema whose
 * input is the options type) and what it tells (each thread's `ThreadOutcome`, each job's start and end, `WorkerStats`).
 */
import { z } from "zod";
import { COMPACTION_OPTIONS, keepCheckpoints } from "../../engine/options.js";
import { integer, listOf, satisfying, text } from "../../options/rules.js";

const fn = <F>() => satisfying<F>((value) => typeof value === "function", "a function");

/** What every worker form takes (`CompactionWorker`, `compactThreads`). */
export const WORKER_OPTIONS = COMPACTION_OPTIONS.extend({
  /**
   * After each compaction the worker writes, prune the thread to its newest `keepCheckpoints` checkpoints
   * (`pruneThread`). @default keep every checkpoint
   */
  keepCheckpoints: keepCheckpoints.optional(),
  /** Threads compacted at once (in this process). @default 1 */
  concurrency: integer(1).optional(),
});

export type WorkerOptions = z.input<typeof WORKER_OPTIONS>;

/** `CompactionWorker`'s options. */
export const COMPACTION_WORKER_OPTIONS = WORKER_OPTIONS.extend({
  /** Told about every thread a job compacted, skipped or failed on, and every compaction a run superseded. */
  onOutcome: fn<(outcome: ThreadOutcome) => void>().optional(),
  /** A thread is compacted once its head has not moved for this long. @default 60000 */
  idleMs: integer(0).optional(),
  /** How often the store is swept for threads whose head changed (each gets a job). @default 5000 */
  pollMs: integer(50).optional(),
  /**
   * A job not done in this long is given up and retried by another worker (a worker killed mid-job holds its
   * thread this long at most). @default twice the summary's timeout
   */
  jobTimeoutMs: integer(1000).optional(),
  /** The Postgres schema of the job queue's tables (pg-boss's, created by its own migrations). @default "pgboss" */
  queueSchema: text("a schema name").optional(),
  /** Told when this process starts and ends a thread's job (what a log needs to show no two overlap). */
  onJob: fn<(event: JobEvent) => void>().optional(),
  /** Told when the queue or the store fails outside a job (pg-boss's errors, a sweep that could not read). */
  onError: fn<(error: unknown) => void>().optional(),
});

export type CompactionWorkerOptions = z.input<typeof COMPACTION_WORKER_OPTIONS>;

/** `compactThreads`' options. */
export const COMPACT_THREADS_OPTIONS = WORKER_OPTIONS.extend({
  /** The threads to compact. @default every thread of the store */
  threads: listOf(text("an array of thread ids"), "an array of thread ids").optional(),
  /** Stops taking threads when it aborts. */
  signal: satisfying<AbortSignal>(
    (value) => typeof (value as { addEventListener?: unknown } | null)?.addEventListener === "function",
    "an AbortSignal",
  ).optional(),
  /** Told after each thread. */
  onProgress: fn<(progress: { done: number; total: number; outcome: ThreadOutcome }) => void>().optional(),
});

export type CompactThreadsOptions = z.input<typeof COMPACT_THREADS_OPTIONS>;

/** Why a thread was skipped, as a key for counters and filters. */
export type SkipKind =
  "under limit" | "busy" | "interrupted" | "conflict" | "nothing to compact" | "stopped" | "not idle";

/** A thread's job, started or ended in this process. */
export interface JobEvent {
  threadId: string;
  jobId: string;
  event: "started" | "ended";
  /** How the job ended: its thread's outcome, or "failed" (retried by pg-boss while it has retries left). */
  status?: ThreadOutcome["status"];
}

export interface ThreadOutcome {
  threadId: string;
  /**
   * "superseded": a compaction written earlier (by any worker or process, before a restart too) that a run superseded
   * (it had read the thread just before the write and wrote from the write's parent just after): not in the head's
   * line, so it does not count; found in the store by a later sweep, with its checkpoint deleted (`reason` says
   * whether it could be).
   */
  status: "compacted" | "skipped" | "failed" | "superseded";
  /** Why a thread was skipped or failed: the engine's reason, the error. */
  reason?: string;
  /** A skipped thread's reason as a key. */
  skip?: SkipKind;
  tokensBefore?: number;
  tokensAfter?: number;
  /** The head a compaction wrote (and pruned to, with keepCheckpoints); the write a run superseded. */
  checkpointId?: string;
  /** The head read, when one was. */
  headId?: string;
  /** The error of a failed thread. */
  error?: unknown;
}

export interface WorkerStats {
  /** Sweeps of the store this process ran (each sends a job for every thread whose head changed). */
  sweeps: number;
  /** Jobs this process ran. */
  jobs: number;
  /** Compactions written; those in the head's line are `compacted - superseded`. */
  compacted: number;
  /** Compactions a run superseded: written, then left off the head's line by a run that had read the thread before. */
  superseded: number;
  skipped: Record<string, number>;
  errors: number;
}

/** What `runOnce` did: one sweep, and every job due then, run in this process. */
export interface RunOnceSummary {
  /** Threads whose head changed since this process last swept (every thread at its first sweep): each sent a job. */
  changed: number;
  jobs: number;
  compacted: number;
  skipped: number;
  failed: number;
  /** Compactions a run superseded (`ThreadOutcome`'s "superseded"), found by the sweep. */
  superseded: number;
  ms: number;
}
