/**
 * What a worker takes (its options' types; their rules are options/runtime-fields.ts)
 * and what it tells (each thread's `ThreadOutcome`, each pass's `PassSummary`, `WorkerStats`).
 */
import type { HistoryManagerOptions } from "../../engine/history-manager-options.js";
import type { NOT_IN_WORKER } from "../../options/runtime-fields.js";

export interface WorkerOptions extends Omit<HistoryManagerOptions, "checkpointer" | keyof typeof NOT_IN_WORKER> {
  /** Threads compacted at once. @default 1 */
  concurrency?: number;
  /** How long a lease lasts; a worker killed mid-compaction holds the thread this long at most. @default 2 × summaryTimeoutMs */
  leaseMs?: number;
  /**
   * Compactions at once on this machine across the worker processes and `compactThreads` calls of this store (each
   * holds one of its slots, named after the store — its file, or its server, database and schema — and freed by the
   * operating system when its process dies). More compactions than cores only share the cores: each costs more CPU
   * (`npm run bench:fleet`). `false`, or not given: no limit beyond this process's `concurrency`; processes of other
   * stores on the machine never share slots with these.
   * @default false
   */
  hostConcurrency?: number | false;
  /** Told about every thread a pass compacted, skipped or failed on. */
  onOutcome?: (outcome: ThreadOutcome) => void;
  /** Told when a lease is taken and given back (what a log of takes needs to show no overlap). */
  onLease?: (event: { threadId: string; owner: string; event: "taken" | "released" }) => void;
}

/** Why a thread was skipped, as a key for counters and filters. */
export type SkipKind =
  "leased" | "under limit" | "busy" | "interrupted" | "conflict" | "nothing to compact" | "stopped";

export interface ThreadOutcome {
  threadId: string;
  /**
   * "superseded": a compaction this worker wrote earlier that a run superseded (it had read the thread just before the
   * write and wrote from the write's parent just after): not in the head's line, so it does not count; reported at the
   * first pass that sees the thread's head move, with its checkpoint deleted (`reason` says whether it could be).
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

export interface CompactionWorkerOptions extends WorkerOptions {
  /** A thread is compacted once its head has not moved for this long. @default 60000 */
  idleMs?: number;
  /** Pause between passes of `start()`. @default 5000 */
  pollMs?: number;
  /** The longest pause after store errors (doubling from `pollMs`). @default 60000 */
  maxBackoffMs?: number;
  /** Told after every pass (its summary). */
  onPass?: (pass: PassSummary) => void;
  /** Told how many threads a pass is about to compact (over the limit and idle), before the first one. */
  onCandidates?: (count: number) => void;
  /** Told when a pass of `start()` fails (the store could not be read or failed); the next one backs off. */
  onError?: (error: unknown) => void;
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
