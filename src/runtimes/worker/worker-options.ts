/** What a worker takes (its options, checked here) and what it tells of each thread (`ThreadOutcome`). */
import { invalidArgument } from "../../errors.js";
import type { HistoryManagerOptions } from "../../engine/manager-options.js";

/** What a worker has no use for, and why (refused at run time: validate-hooks.ts). */
export const NOT_IN_WORKER = {
  busyWaitMs: "a worker never waits for a busy thread: the next pass sees it again",
  lateness: "a worker runs no turns to be late for: it compacts every thread over the limit it is given",
  hardLimit: "a worker runs no turns that could pass the window",
  recoveryRatio: "recovering from an overflowing turn is the wrapper's",
} as const;

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

/** Validated numbers of the worker's options. */
export function positiveInteger(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1)
    throw invalidArgument(name, value, "an integer >= 1");
  return value;
}
