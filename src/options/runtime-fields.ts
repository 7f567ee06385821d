/**
 * Each runtime's options: the shared ones (fields.ts) and its own. An option a runtime has no use for is refused
 * saying why (`notTaken`); one it does not know at all, by name (check.ts).
 */
import { z } from "zod";
import { MANAGER_FIELDS, SHARED_FIELDS, bytes, circuitBreaker, notTaken, omit } from "./fields.js";
import { flag, fn, integer, listOf, record, satisfying, text, withMethods, type Rule } from "./rules.js";

const archive = record("an object with a store");

/** The options the wrapper no longer takes, and what replaced them. */
const REMOVED = {
  maxTurnsOverLimit: notTaken(
    "CompactingSupervisor",
    "replaced by `lateness` (turns that may start over tokenLimit before one waits for the summary; default 2)",
  ),
  workers: notTaken(
    "CompactingSupervisor",
    'removed: compactions run on the application\'s thread, in phases that let the event loop turn over (docs/deploying.md, "When compactions land")',
  ),
} as const;

/** `CompactingSupervisorOptions`. */
export const WRAPPER_FIELDS = {
  ...SHARED_FIELDS,
  archive,
  strategy: satisfying(() => true, "a strategy"),
  background: flag,
  circuitBreaker,
  onCompaction: fn(),
  onCompactionError: fn(),
  onCompactionOutcome: fn(),
  maxThreads: integer(1),
  cacheBytes: bytes,
} as const satisfies Record<string, Rule>;
export const WRAPPER_SCHEMA = { ...WRAPPER_FIELDS, ...REMOVED };

const IN_GRAPH = "the middleware and the node";
/** What the in-graph step has no use for, and why. */
export const NOT_IN_GRAPH = {
  maxWriteAttempts: notTaken(IN_GRAPH, "the graph writes its own state, so there is no compare-and-swap to retry"),
  busyWaitMs: notTaken(IN_GRAPH, "the step runs inside the run, so it never waits for a busy head"),
  recoveryRatio: notTaken(IN_GRAPH, "recovering from an overflowing turn is the wrapper's"),
  keepCheckpoints: notTaken(IN_GRAPH, "prune with the compaction worker or the script (compact-thread prune)"),
} as const;

/** `InGraphOptions` (the middleware's and the node's). */
export const IN_GRAPH_FIELDS = {
  ...omit(
    MANAGER_FIELDS,
    "checkpointer",
    "onUsageIgnored",
    ...(Object.keys(NOT_IN_GRAPH) as Array<keyof typeof NOT_IN_GRAPH>),
  ),
  checkpointer: withMethods(["getTuple", "put"], "a LangGraph checkpoint saver"),
  store: withMethods(["get", "put"], "a LangGraph BaseStore"),
  background: flag,
  onSummaryReady: fn(),
  archive,
  onArchive: fn(),
  circuitBreaker,
  onCompaction: fn(),
  onCompactionError: fn(),
} as const satisfies Record<string, Rule>;
export const IN_GRAPH_SCHEMA = { ...IN_GRAPH_FIELDS, ...NOT_IN_GRAPH };

const WORKER = "the compaction worker";
/** What a worker has no use for, and why. */
export const NOT_IN_WORKER = {
  busyWaitMs: notTaken(WORKER, "a worker never waits for a busy thread: the next pass sees it again"),
  lateness: notTaken(
    WORKER,
    "a worker runs no turns to be late for: it compacts every thread over the limit it is given",
  ),
  hardLimit: notTaken(WORKER, "a worker runs no turns that could pass the window"),
  recoveryRatio: notTaken(WORKER, "recovering from an overflowing turn is the wrapper's"),
} as const;

/** `WorkerOptions`: what every worker form takes. */
export const LEASED_FIELDS = {
  ...omit(MANAGER_FIELDS, "checkpointer", ...(Object.keys(NOT_IN_WORKER) as Array<keyof typeof NOT_IN_WORKER>)),
  concurrency: integer(1),
  leaseMs: integer(1),
  hostConcurrency: z.union([z.literal(false), integer(1)], { error: "an integer >= 1 or false" }),
  onOutcome: fn(),
  onLease: fn(),
} as const satisfies Record<string, Rule>;
export const LEASED_SCHEMA = { ...LEASED_FIELDS, ...NOT_IN_WORKER };

/** `CompactionWorkerOptions`. */
export const WORKER_FIELDS = {
  ...LEASED_FIELDS,
  idleMs: integer(0),
  pollMs: integer(1),
  maxBackoffMs: integer(1),
  onPass: fn(),
  onCandidates: fn(),
  onError: fn(),
} as const satisfies Record<string, Rule>;
export const WORKER_SCHEMA = { ...WORKER_FIELDS, ...NOT_IN_WORKER };

/** `CompactThreadsOptions`. */
export const COMPACT_THREADS_FIELDS = {
  ...LEASED_FIELDS,
  threads: listOf(text("an array of thread ids"), "an array of thread ids"),
  over: SHARED_FIELDS.tokenLimit,
  signal: withMethods(["addEventListener"], "an AbortSignal"),
  onProgress: fn(),
} as const satisfies Record<string, Rule>;
export const COMPACT_THREADS_SCHEMA = { ...COMPACT_THREADS_FIELDS, ...NOT_IN_WORKER };
