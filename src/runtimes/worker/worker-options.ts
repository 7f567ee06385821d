/**
 * What a worker takes (its options: the shared vocabulary, engine/options.ts, and the worker's own, one schema whose
 * input is the options type) and what it tells (each thread's `ThreadOutcome`, each pass's `PassSummary`,
 * `WorkerStats`).
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
  /** Threads compacted at once. @default 1 */
  concurrency: integer(1).optional(),
  /** How long a lease lasts; a worker killed mid-compaction holds the thread this long at most. @default 240000 */
  leaseMs: integer(1).optional(),
  /**
   * Compactions at once on this machine across the worker processes and `compactThreads` calls of this store (each
   * holds one of its slots, named after the store, freed by the operating system when its process dies). `false`,
   * or not given: no limit beyond this process's `concurrency`. @default false
   */
  hostConcurrency: z.union([z.literal(false), integer(1)], { error: "an integer >= 1 or false" }).optional(),
  /** Told about every thread a pass compacted, skipped or failed on. */
  onOutcome: fn<(outcome: ThreadOutcome) => void>().optional(),
  /** Told when a lease is taken and given back (what a log of takes needs to show no overlap). */
  onLease: fn<(event: { threadId: string; owner: string; event: "taken" | "released" }) => void>().optional(),
});

export type WorkerOptions = z.input<typeof WORKER_OPTIONS>;

/** `CompactionWorker`'s options. */
export const COMPACTION_WORKER_OPTIONS = WORKER_OPTIONS.extend({
  /** A thread is compacted once its head has not moved for this long. @default 60000 */
  idleMs: integer(0).optional(),
  /** Pause between passes of `start()`. @default 5000 */
  pollMs: integer(1).optional(),
  /** The longest pause after store errors (doubling from `pollMs`). @default 60000 */
  maxBackoffMs: integer(1).optional(),
  /** Told after every pass (its summary). */
  onPass: fn<(pass: PassSummary) => void>().optional(),
  /** Told how many threads a pass is about to compact (over the limit and idle), before the first one. */
  onCandidates: fn<(count: number) => void>().optional(),
  /** Told when a pass of `start()` fails (the store could not be read or failed); the next one backs off. */
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
  "leased" | "under limit" | "busy" | "interrupted" | "conflict" | "nothing to compact" | "stopped";

export interface ThreadOutcome {
  threadId: string;
  /**
   * "superseded": a compaction written earlier (by any worker or process, before a restart too) that a run superseded
   * (it had read the thread just before the write and wrote from the write's parent just after): not in the head's
   * line, so it does not count; found in the store at the next pass, with its checkpoint deleted (`reason` says
   * whether it could be).
   */
  status: "compacted" | "skipped" | "failed" | "superseded";
  /** Why a thread was skipped or failed: "leased" (another worker holds it), the engine's reason, the error. */
  reason?: string;
  /** A skipped thread's reason as a key. */
  skip?: SkipKind;
  tokensBefore?: number;
  tokensAfter?: number;
  /** The head a compaction wrote (and pruned to, with keepCheckpoints); the write a run superseded. */
  checkpointId?: string;
  /** The head read, when one was (a thread another worker held, or whose lease failed, was not read). */
  headId?: string;
  /** The head another worker counted, when this one took its count instead of reading. */
  knownHeadId?: string;
  /** The error of a failed thread. */
  error?: unknown;
}

export interface PassSummary {
  pass: number;
  /** Threads whose head differs from what this worker saw last (every thread on the first pass). */
  changed: number;
  /** Heads read in this pass: only threads whose head changed and that no worker had counted, and candidates. */
  headsRead: number;
  /** Idle threads over the limit or not counted yet (counted under their lease). */
  candidates: number;
  compacted: number;
  skipped: number;
  failed: number;
  /** Compactions of earlier passes that a run superseded (`ThreadOutcome`'s "superseded"), found in this pass. */
  superseded: number;
  ms: number;
}

export interface WorkerStats {
  passes: number;
  /** Threads this worker knows of. */
  threadsSeen: number;
  headsRead: number;
  /** Compactions written; those in the head's line are `compacted - superseded`. */
  compacted: number;
  /** Compactions a run superseded: written, then left off the head's line by a run that had read the thread before. */
  superseded: number;
  skipped: Record<string, number>;
  /** Threads another worker held (their lease was taken). */
  conflicts: number;
  errors: number;
  /** How long the oldest idle thread over the limit has waited, as of the last pass (ms). */
  lagMs: number;
}
