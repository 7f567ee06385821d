/**
 * The worker runtime: compaction of many threads from outside the application, over a shared store.
 *
 * A pass asks the store which threads' heads changed since the last pass (an indexed query on checkpoint ids, which
 * sort by time: no checkpoint is read), reads and counts only those heads, and remembers each thread's head id and
 * tokens. A thread over the limit whose head has not moved for `idleMs` (its id says when it was written) is
 * compacted by the engine (`HistoryManager.compactThread`, which leaves busy and interrupted threads alone), then
 * pruned when `keepCheckpoints` is set — each under the thread's lease (store/leases.ts), so workers side by side
 * never compact one thread at once. `compactThreads` is the same work done once over a list of threads.
 */
import { randomUUID } from "node:crypto";
import { availableParallelism } from "node:os";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { asStoreError, invalidArgument, isStoreFailure } from "../../errors.js";
import { HistoryManager } from "../../engine/history-manager.js";
import type { HistoryManagerOptions } from "../../engine/manager-options.js";
import { isOverLimit } from "../../engine/policy.js";
import type { ConflictReport, SkippedReport } from "../../engine/report.js";
import { pause } from "../../pause.js";
import { validateHooks } from "../../validate-hooks.js";
import { checkpointIdAt, checkpointTime } from "../../store/checkpoint-time.js";
import type { SeenHead } from "../../store/leases.js";
import type { ThreadStore } from "../../store/thread-store.js";
import { HostSlots } from "./host-slots.js";

export interface WorkerOptions extends Omit<HistoryManagerOptions, "checkpointer" | "busyWaitMs"> {
  /** Threads compacted at once. @default 1 */
  concurrency?: number;
  /** How long a lease lasts; a worker killed mid-compaction holds the thread this long at most. @default 2 × summaryTimeoutMs */
  leaseMs?: number;
  /**
   * Compactions at once on this machine, across every worker process and `compactThreads` call on it (each holds
   * one of these slots, which the operating system frees when its process dies); `false` for no limit. More
   * compactions than cores only share the cores: each costs more CPU (`npm run bench:fleet`).
   * @default os.availableParallelism()
   */
  hostConcurrency?: number | false;
  /** Told about every thread a pass compacted, skipped or failed on. */
  onOutcome?: (outcome: ThreadOutcome) => void;
  /** Told when a lease is taken and given back (what a log of takes needs to show no overlap). */
  onLease?: (event: { threadId: string; owner: string; event: "taken" | "released" }) => void;
}

/** Why a thread was skipped, as a key for counters and filters. */
export type SkipKind = "leased" | "under limit" | "busy" | "interrupted" | "conflict" | "nothing to compact" | "stopped";

export interface ThreadOutcome {
  threadId: string;
  status: "compacted" | "skipped" | "failed";
  /** Why a thread was skipped or failed: "leased" (another worker holds it), the engine's reason, the error. */
  reason?: string;
  /** A skipped thread's reason as a key. */
  skip?: SkipKind;
  tokensBefore?: number;
  tokensAfter?: number;
  /** The head a compaction wrote (and pruned to, with keepCheckpoints). */
  checkpointId?: string;
  /** The head read, when one was (a thread another worker held, or whose lease failed, was not read). */
  headId?: string;
  /** The head another worker counted, when this one took its count instead of reading. */
  knownHeadId?: string;
  /** The error of a failed thread. */
  error?: unknown;
}

/**
 * A process that has read or compacted a thread within WARM_MS goes first for the machine's slots; one that has not
 * lets it, waiting COLD_DEFER_MS before its first try. The work then stays in the processes whose code is compiled
 * for it: a process's first compactions cost a third more CPU (`npm run bench:fleet`, first against second growth).
 */
const WARM_MS = 10 * 60_000;
const COLD_DEFER_MS = 200;
/** When this process last read or compacted a thread under its lease (performance.now()). */
let lastWorked = Number.NEGATIVE_INFINITY;

/** Threads per lane whose records are read in one query before they are handed out. */
const CHUNK = 16;

/** Validated numbers of the worker's options. */
export function positiveInteger(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) throw invalidArgument(name, value, "an integer >= 1");
  return value;
}

/**
 * Compacts threads under their leases, `concurrency` at a time: the work of a worker's pass and of `compactThreads`.
 * Stops taking threads when `signal` aborts or the store fails (the outcome says so); never throws for one thread.
 */
export class LeasedCompactor {
  readonly owner = `worker-${randomUUID()}`;
  readonly manager: HistoryManager;
  readonly store: ThreadStore;
  readonly concurrency: number;
  readonly leaseMs: number;
  /** The machine's compaction slots; undefined with `hostConcurrency: false`. */
  readonly slots?: HostSlots;

  constructor(
    checkpointer: BaseCheckpointSaver,
    private readonly options: WorkerOptions,
  ) {
    const { concurrency, leaseMs, hostConcurrency, onOutcome: _onOutcome, onLease: _onLease, ...managerOptions } = options;
    validateHooks(options, ["onOutcome", "onLease"]);
    this.concurrency = positiveInteger("concurrency", concurrency, 1);
    // A worker never waits for a busy thread: the next pass sees it again.
    this.manager = new HistoryManager({ ...managerOptions, checkpointer, busyWaitMs: 0 });
    this.store = this.manager.store;
    this.leaseMs = positiveInteger("leaseMs", leaseMs, 2 * (options.summaryTimeoutMs ?? 120_000));
    if (hostConcurrency !== false) this.slots = new HostSlots(positiveInteger("hostConcurrency", hostConcurrency, availableParallelism()));
  }

  /**
   * Compacts `threadIds` (over the limit, or `force`d), returning each one's outcome in order of completion.
   * `heads`: the head each thread was seen at; a thread whose record (its lease's) holds that head or a later one,
   * counted under the limit by the worker that held it, is not read again. The record is read for a chunk of threads
   * in one query before they are handed out, and again when the lease is taken: threads another worker has done since
   * this pass began cost neither a lease nor a read.
   */
  async run(threadIds: readonly string[], { signal, force = false, heads }: { signal?: AbortSignal; force?: boolean; heads?: ReadonlyMap<string, string> } = {}): Promise<{ outcomes: ThreadOutcome[]; storeError?: unknown }> {
    const outcomes: ThreadOutcome[] = [];
    let storeError: unknown;
    const queue: Array<{ threadId: string; known?: SeenHead }> = [];
    let position = 0;
    let loading: Promise<void> | undefined;
    const load = async () => {
      const chunk = threadIds.slice(position, position + CHUNK * this.concurrency);
      position += chunk.length;
      const known = heads && !force ? await this.store.leases.known(chunk) : new Map<string, SeenHead>();
      for (const threadId of chunk) queue.push({ threadId, known: known.get(threadId) });
    };
    const nextThread = async () => {
      while (queue.length === 0 && position < threadIds.length) {
        loading ??= load().finally(() => (loading = undefined));
        await loading;
      }
      return queue.shift();
    };
    const lane = async () => {
      // A slot of the machine's, taken before the lane's first thread and kept until it has none left: the processes
      // that hold the slots do the work, and the others wait, holding no thread, instead of sharing the cores. A
      // lane that waited reads its threads' records after the wait, so it skips what the holders did meanwhile. A
      // process that has not compacted lately lets one that has go first.
      const slot = await this.slots?.acquire(signal, { deferMs: performance.now() - lastWorked < WARM_MS ? 0 : COLD_DEFER_MS });
      if (this.slots && !slot) return;
      try {
        while (!signal?.aborted && storeError === undefined) {
          let item: { threadId: string; known?: SeenHead } | undefined;
          try {
            item = await nextThread();
          } catch (error) {
            storeError ??= asStoreError(error);
            return;
          }
          if (!item) return;
          const seenHead = heads?.get(item.threadId);
          const counted = force ? undefined : this.countedElsewhere(item.threadId, seenHead, item.known);
          const outcome = counted ?? (await this.one(item.threadId, force, seenHead, signal));
          if (outcome.headId !== undefined) lastWorked = performance.now();
          if (outcome.status === "failed" && isStoreFailure(outcome.error)) storeError = outcome.error;
          outcomes.push(outcome);
          this.options.onOutcome?.(outcome);
        }
      } finally {
        slot?.release();
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, threadIds.length) }, lane));
    return { outcomes, ...(storeError === undefined ? {} : { storeError }) };
  }

  /**
   * The outcome of a thread another worker counted under the limit at the head this pass saw or a later one (a
   * compaction's id sorts after the head it replaced): its count stands, nothing is read.
   */
  private countedElsewhere(threadId: string, seenHead: string | undefined, known: SeenHead | undefined): ThreadOutcome | undefined {
    const { policy } = this.manager;
    if (seenHead === undefined || known === undefined || known.headId < seenHead || policy.tokenLimit === undefined || isOverLimit(policy, known.tokens)) return undefined;
    return { threadId, status: "skipped", reason: `counted by another worker: ${known.tokens} tokens, not over the limit of ${policy.tokenLimit}`, skip: "under limit", tokensBefore: known.tokens, knownHeadId: known.headId };
  }

  /** Why the engine left a thread alone, from the report's code (never its wording). */
  private skipKind(report: SkippedReport | ConflictReport): SkipKind {
    if (report.status === "conflict") return "conflict";
    if (report.code === "INTERRUPTED") return "interrupted";
    if (report.code === "BUSY") return "busy";
    if (report.code === "UNDER_LIMIT") return "under limit";
    return "nothing to compact";
  }

  /** `signal`: stopping abandons the summary in flight (nothing written; the lease given back). */
  private async one(threadId: string, force: boolean, seenHead: string | undefined, signal?: AbortSignal): Promise<ThreadOutcome> {
    let lease: { taken: boolean; seen?: SeenHead };
    try {
      lease = await this.store.leases.take(threadId, this.owner, this.leaseMs);
    } catch (error) {
      return { threadId, status: "failed", reason: "the lease could not be taken", error: asStoreError(error, threadId) };
    }
    if (!lease.taken) return { threadId, status: "skipped", reason: "leased", skip: "leased" };
    this.options.onLease?.({ threadId, owner: this.owner, event: "taken" });
    let seen: SeenHead | undefined;
    try {
      // Counted by another worker since the chunk's record was read.
      const counted = force ? undefined : this.countedElsewhere(threadId, seenHead, lease.seen);
      if (counted) return counted;
      const report = await this.manager.compactThread({ configurable: { thread_id: threadId } }, { ...(force ? { force: true } : {}), ...(signal ? { signal } : {}) });
      const headId = report.previousCheckpointId ?? undefined;
      if (report.status === "compacted") {
        seen = { headId: report.newCheckpointId, tokens: report.tokensAfter };
        return { threadId, status: "compacted", tokensBefore: report.tokensBefore, tokensAfter: report.tokensAfter, checkpointId: report.newCheckpointId, ...(headId ? { headId } : {}) };
      }
      if (headId && report.tokensBefore !== undefined) seen = { headId, tokens: report.tokensBefore };
      return { threadId, status: "skipped", reason: report.status === "conflict" ? `conflict: ${report.reason}` : report.reason, skip: this.skipKind(report), tokensBefore: report.tokensBefore, ...(headId ? { headId } : {}) };
    } catch (error) {
      // Stopping abandoned the summary in flight: nothing was written, and the lease goes back below.
      if (signal?.aborted) return { threadId, status: "skipped", reason: "stopped: the summary in flight was abandoned, nothing written", skip: "stopped" };
      const typed = asStoreError(error, threadId);
      return { threadId, status: "failed", reason: typed instanceof Error ? typed.message : String(typed), error: typed };
    } finally {
      // Given back after the write (and the prune), with what was seen; a worker that dies here leaves it to expire.
      this.options.onLease?.({ threadId, owner: this.owner, event: "released" });
      await this.store.leases.release(threadId, this.owner, seen).catch(() => undefined);
    }
  }
}

/** How far before the newest head seen a pass looks again (a turn committed late). */
const LOOKBACK_MS = 60_000;

/** What a thread looked like when a pass last read it. */
interface Seen {
  headId: string;
  tokens?: number;
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
  ms: number;
}

export interface WorkerStats {
  passes: number;
  /** Threads this worker knows of. */
  threadsSeen: number;
  headsRead: number;
  compacted: number;
  skipped: Record<string, number>;
  /** Threads another worker held (their lease was taken). */
  conflicts: number;
  errors: number;
  /** How long the oldest idle thread over the limit has waited, as of the last pass (ms). */
  lagMs: number;
}

export class CompactionWorker {
  private readonly compactor: LeasedCompactor;
  private readonly idleMs: number;
  private readonly pollMs: number;
  private readonly maxBackoffMs: number;
  private readonly seen = new Map<string, Seen>();
  /** When the newest head seen was written (ms). */
  private newest?: number;
  private readonly counters: WorkerStats = { passes: 0, threadsSeen: 0, headsRead: 0, compacted: 0, skipped: {}, conflicts: 0, errors: 0, lagMs: 0 };
  private running?: Promise<void>;
  private stopping?: AbortController;

  /** @throws CompactionError INVALID_ARGUMENT for a bad option (the wrapper's errors for the shared ones). */
  constructor(
    checkpointer: BaseCheckpointSaver,
    private readonly options: CompactionWorkerOptions,
  ) {
    const { idleMs, pollMs, maxBackoffMs, onPass: _onPass, onError: _onError, onCandidates: _onCandidates, ...rest } = options;
    validateHooks(options, ["onPass", "onError", "onCandidates"]);
    if (idleMs !== undefined && (typeof idleMs !== "number" || !Number.isInteger(idleMs) || idleMs < 0)) throw invalidArgument("idleMs", idleMs, "an integer >= 0");
    this.idleMs = idleMs ?? 60_000;
    this.pollMs = positiveInteger("pollMs", pollMs, 5_000);
    this.maxBackoffMs = positiveInteger("maxBackoffMs", maxBackoffMs, 60_000);
    this.compactor = new LeasedCompactor(checkpointer, rest);
    if (this.compactor.manager.policy.tokenLimit === undefined) throw invalidArgument("tokenLimit", undefined, "a number of tokens (a worker compacts the threads above it)");
  }

  /** The worker's counters, for a metrics endpoint. */
  stats(): WorkerStats {
    return { ...this.counters, skipped: { ...this.counters.skipped } };
  }

  /**
   * One pass: the threads whose head changed are read and counted; the idle ones over the limit are compacted.
   * @throws CompactionError STORE_UNAVAILABLE (and the store's other errors) when the store cannot be listed or fails.
   */
  async runOnce(signal?: AbortSignal): Promise<PassSummary> {
    const started = performance.now();
    const { store, manager } = this.compactor;
    // Heads written since the newest one seen, less a minute: a turn's id is made before its write commits, so a
    // slower commit can land with an id below one already seen. Heads seen as they are are not read again.
    const rows = await store.changedSince(this.newest === undefined ? "" : checkpointIdAt(this.newest - LOOKBACK_MS));
    let changed = 0;
    for (const row of rows) {
      const written = checkpointTime(row.headCheckpointId);
      if (written !== undefined && written > (this.newest ?? 0)) this.newest = written;
      if (this.seen.get(row.threadId)?.headId === row.headCheckpointId) continue;
      this.seen.set(row.threadId, { headId: row.headCheckpointId });
      changed++;
    }
    // Tokens other workers recorded when they last held a thread (no head read), for the threads this one cannot
    // count: a record of the same head, or of a later one (a compaction's id sorts after the head it replaced).
    const unknown = [...this.seen.entries()].filter(([, seen]) => seen.tokens === undefined).map(([threadId]) => threadId);
    for (const [threadId, known] of await store.leases.known(unknown)) {
      const seen = this.seen.get(threadId)!;
      if (known.headId >= seen.headId) this.seen.set(threadId, known);
    }
    const now = Date.now();
    let lag = 0;
    const candidates: string[] = [];
    // Over the limit, or not counted yet: counted under the thread's lease (by the one worker that gets it).
    for (const [threadId, seen] of this.seen) {
      if (seen.tokens !== undefined && !isOverLimit(manager.policy, seen.tokens)) continue;
      const written = checkpointTime(seen.headId) ?? 0;
      if (now - written < this.idleMs) continue;
      candidates.push(threadId);
      lag = Math.max(lag, now - written - this.idleMs);
    }
    // In an order of its own: workers side by side start on different threads instead of queueing for the same leases.
    shuffle(candidates);
    this.options.onCandidates?.(candidates.length);
    const heads = new Map(candidates.map((threadId) => [threadId, this.seen.get(threadId)!.headId]));
    const { outcomes, storeError } = await this.compactor.run(candidates, { heads, ...(signal ? { signal } : {}) });
    let headsRead = 0;
    for (const outcome of outcomes) {
      if (outcome.headId) headsRead++;
      // What this worker wrote it knows without reading it (the write's id sorts just after the head it replaced).
      if (outcome.status === "compacted" && outcome.checkpointId) this.seen.set(outcome.threadId, { headId: outcome.checkpointId, tokens: outcome.tokensAfter });
      if (outcome.status === "compacted") this.counters.compacted++;
      else if (outcome.status === "failed") this.counters.errors++;
      else if (outcome.skip === "leased") this.counters.conflicts++;
      else {
        const reason = outcome.skip!;
        this.counters.skipped[reason] = (this.counters.skipped[reason] ?? 0) + 1;
        // Under the limit: its tokens; busy, interrupted, nothing to summarize, a lost race: tried again once its
        // head has changed, which the store reports. One another worker holds is tried at the next pass.
        const seen = this.seen.get(outcome.threadId)!;
        this.seen.set(outcome.threadId, { headId: outcome.headId ?? outcome.knownHeadId ?? seen.headId, tokens: reason === "under limit" && outcome.tokensBefore !== undefined ? outcome.tokensBefore : -1 });
      }
    }
    this.counters.passes++;
    this.counters.threadsSeen = this.seen.size;
    this.counters.headsRead += headsRead;
    this.counters.lagMs = lag;
    const summary: PassSummary = {
      pass: this.counters.passes,
      changed,
      headsRead,
      candidates: candidates.length,
      compacted: outcomes.filter((outcome) => outcome.status === "compacted").length,
      skipped: outcomes.filter((outcome) => outcome.status === "skipped").length,
      failed: outcomes.filter((outcome) => outcome.status === "failed").length,
      ms: performance.now() - started,
    };
    this.options.onPass?.(summary);
    if (storeError !== undefined) throw storeError;
    return summary;
  }

  /** Passes until `stop()`, pausing `pollMs` between them and backing off (doubling) after store errors. */
  start(): void {
    if (this.running) return;
    const stopping = (this.stopping = new AbortController());
    this.running = (async () => {
      let wait = this.pollMs;
      while (!stopping.signal.aborted) {
        try {
          await this.runOnce(stopping.signal);
          wait = this.pollMs;
        } catch (error) {
          this.counters.errors++;
          this.options.onError?.(error);
          wait = Math.min(this.maxBackoffMs, wait * 2);
        }
        await pause(wait, stopping.signal);
      }
    })();
  }

  /**
   * Stops taking threads and abandons the summary in flight (nothing written); resolves once its lease is given
   * back. A write already under way finishes (it takes milliseconds).
   */
  async stop(): Promise<void> {
    this.stopping?.abort();
    await this.running;
    this.running = undefined;
  }
}

function shuffle<T>(items: T[]): void {
  for (let index = items.length - 1; index > 0; index--) {
    const other = Math.floor(Math.random() * (index + 1));
    [items[index], items[other]] = [items[other]!, items[index]!];
  }
}
