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
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import type { CompactionPolicy } from "../../engine/policy.js";
import { isOverLimit } from "../../engine/limits.js";
import { settleWrite } from "../../engine/superseded-write.js";
import { pause } from "../../pause.js";
import {
  COMPACTION_WORKER_OPTIONS,
  WORKER_OPTIONS,
  type CompactionWorkerOptions,
  type PassSummary,
  type WorkerStats,
} from "./worker-options.js";

import { checkpointIdAt, checkpointTime } from "../../store/checkpoint-time.js";
import { LeasedCompactor } from "./leased-compactor.js";
import { leasesOf } from "../../store/leases.js";

export type { CompactionWorkerOptions, PassSummary, WorkerStats } from "./worker-options.js";
export { LeasedCompactor, type SkipKind, type ThreadOutcome, type WorkerOptions } from "./leased-compactor.js";

/** How far before the newest head seen a pass looks again (a turn committed late). */
const LOOKBACK_MS = 60_000;

/** What a thread looked like when a pass last read it. */
interface Seen {
  headId: string;
  tokens?: number;
}

export class CompactionWorker {
  private readonly compactor: LeasedCompactor;
  private readonly idleMs: number;
  private readonly pollMs: number;
  private readonly maxBackoffMs: number;
  private readonly seen = new Map<string, Seen>();
  /** Where the store's look for superseded writes starts (`""`: the whole store, at the first pass). */
  private writesCursor = "";
  /** Superseded writes this worker reported whose checkpoint stays (not reported again). */
  private readonly settled = new Set<string>();
  /** When the newest head seen was written (ms). */
  private newest?: number;
  private readonly counters: WorkerStats = {
    passes: 0,
    threadsSeen: 0,
    headsRead: 0,
    compacted: 0,
    superseded: 0,
    skipped: {},
    conflicts: 0,
    errors: 0,
    lagMs: 0,
  };
  private running?: Promise<void>;
  private stopping?: AbortController;

  /** @throws CompactionError INVALID_ARGUMENT for a bad option (the wrapper's errors for the shared ones). */
  constructor(
    checkpointer: BaseCheckpointSaver,
    private readonly options: CompactionWorkerOptions,
  ) {
    const { idleMs, pollMs, maxBackoffMs } = options;
    this.compactor = new LeasedCompactor(
      checkpointer,
      options,
      "CompactionWorker",
      COMPACTION_WORKER_OPTIONS as unknown as typeof WORKER_OPTIONS,
    );
    this.idleMs = idleMs ?? 60_000;
    this.pollMs = pollMs ?? 5_000;
    this.maxBackoffMs = maxBackoffMs ?? 60_000;
  }

  /** The resolved compaction policy (limits in tokens, the cut, the summary's budget), as every runtime resolves it. */
  get policy(): CompactionPolicy {
    return this.compactor.manager.policy;
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
    const superseded = await this.settleWrites();
    // Tokens other workers recorded when they last held a thread (no head read), for the threads this one cannot
    // count: a record of the same head, or of a later one (a compaction's id sorts after the head it replaced).
    const unknown = [...this.seen.entries()]
      .filter(([, seen]) => seen.tokens === undefined)
      .map(([threadId]) => threadId);
    for (const [threadId, known] of await leasesOf(store).known(unknown)) {
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
      if (outcome.status === "compacted" && outcome.checkpointId) {
        this.seen.set(outcome.threadId, { headId: outcome.checkpointId, tokens: outcome.tokensAfter });
      }
      if (outcome.status === "compacted") this.counters.compacted++;
      else if (outcome.status === "failed") this.counters.errors++;
      else if (outcome.skip === "leased") this.counters.conflicts++;
      else {
        const reason = outcome.skip!;
        this.counters.skipped[reason] = (this.counters.skipped[reason] ?? 0) + 1;
        // Under the limit: its tokens; busy, interrupted, nothing to summarize, a lost race: tried again once its
        // head has changed, which the store reports. One another worker holds is tried at the next pass.
        const seen = this.seen.get(outcome.threadId)!;
        this.seen.set(outcome.threadId, {
          headId: outcome.headId ?? outcome.knownHeadId ?? seen.headId,
          tokens: reason === "under limit" && outcome.tokensBefore !== undefined ? outcome.tokensBefore : -1,
        });
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
      superseded,
      ms: performance.now() - started,
    };
    this.options.onPass?.(summary);
    if (storeError !== undefined) throw storeError instanceof Error ? storeError : new Error(String(storeError));
    return summary;
  }

  /**
   * Compactions of this library that a run superseded, found from the store (whichever process wrote them, before a
   * restart too): each reported once by this worker, and its checkpoint deleted where nothing is lost by it
   * (engine/superseded-write.ts). The first pass looks at the whole store, later ones at writes since the newest head
   * seen, less the lookback. Returns how many were found.
   */
  private async settleWrites(): Promise<number> {
    const { store } = this.compactor;
    let superseded = 0;
    for (const { threadId, headCheckpointId: writtenId } of await store.strandedWrites(this.writesCursor)) {
      if (this.settled.has(writtenId)) continue;
      const settled = await settleWrite(store, threadId, writtenId);
      if (settled.fate === "in line") continue;
      this.settled.add(writtenId);
      superseded++;
      this.counters.superseded++;
      const fate = settled.removed
        ? "its checkpoint was deleted"
        : "its checkpoint stays (the store cannot delete it, or a run started from it)";
      this.options.onOutcome?.({
        threadId,
        status: "superseded",
        checkpointId: writtenId,
        reason: `a run that had read the thread before this compaction wrote from its parent; nothing is lost, ${fate}`,
      });
    }
    if (this.newest !== undefined) this.writesCursor = checkpointIdAt(this.newest - LOOKBACK_MS);
    return superseded;
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
