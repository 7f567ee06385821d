/**
 * One worker's compaction of a list of threads, each under its lease (store/leases.ts): the work of a pass of
 * `CompactionWorker` and of `compactThreads`, with the outcome of each thread.
 */
import { createHash, randomUUID } from "node:crypto";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { asStoreError, isStoreFailure } from "../../errors.js";
import { HistoryManager } from "../../engine/history-manager.js";
import { isOverLimit } from "../../engine/limits.js";
import type { ConflictReport, SkippedReport } from "../../engine/report.js";
import { SUMMARY_TIMEOUT_MS } from "../../engine/manager-options.js";
import { resolveSettings } from "../../engine/settings.js";
import { threadStoreFor } from "../../store/thread-store.js";
import type { z } from "zod";
import { leasesOf, type SeenHead } from "../../store/leases.js";
import type { ThreadStore } from "../../store/thread-store.js";
import { HostSlots } from "./host-slots.js";
import { WORKER_OPTIONS, type SkipKind, type ThreadOutcome, type WorkerOptions } from "./worker-options.js";

export type { SkipKind, ThreadOutcome, WorkerOptions } from "./worker-options.js";

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
  /** The machine's compaction slots of this store; undefined without `hostConcurrency`. */
  readonly slots?: HostSlots;

  /**
   * `options` checked against `schema` (a worker form's: `WORKER_OPTIONS` extended), naming `runtime` in a refusal.
   * @throws CompactionError INVALID_ARGUMENT naming the bad option; without a trigger, naming `trigger`.
   */
  constructor(
    checkpointer: BaseCheckpointSaver,
    private readonly options: WorkerOptions,
    runtime = "the compaction worker",
    schema: typeof WORKER_OPTIONS = WORKER_OPTIONS,
  ) {
    const { concurrency, leaseMs, hostConcurrency } = options;
    const settings = resolveSettings(runtime, schema, options as z.input<typeof schema>, { requireTrigger: true });
    this.concurrency = concurrency ?? 1;
    this.manager = HistoryManager.of({
      ...settings,
      store: threadStoreFor(checkpointer, { recallLanguage: settings.recall.language }),
    });
    this.store = this.manager.store;
    this.leaseMs = leaseMs ?? 2 * (settings.summarizer.timeoutMs ?? SUMMARY_TIMEOUT_MS);
    if (hostConcurrency !== false && hostConcurrency !== undefined) {
      this.slots = new HostSlots(
        hostConcurrency,
        `langgraph-compaction-${createHash("sha256").update(this.store.identity).digest("hex").slice(0, 16)}`,
      );
    }
  }

  /**
   * Compacts `threadIds` (over the limit, or `force`d), returning each one's outcome in order of completion.
   * `heads`: the head each thread was seen at; a thread whose record (its lease's) holds that head or a later one,
   * counted under the limit by the worker that held it, is not read again. The record is read for a chunk of threads
   * in one query before they are handed out, and again when the lease is taken: threads another worker has done since
   * this pass began cost neither a lease nor a read.
   */
  async run(
    threadIds: readonly string[],
    {
      signal,
      force = false,
      heads,
    }: { signal?: AbortSignal; force?: boolean; heads?: ReadonlyMap<string, string> } = {},
  ): Promise<{ outcomes: ThreadOutcome[]; storeError?: unknown }> {
    const outcomes: ThreadOutcome[] = [];
    let storeError: unknown;
    const queue: Array<{ threadId: string; known?: SeenHead }> = [];
    let position = 0;
    let loading: Promise<void> | undefined;
    const load = async () => {
      const chunk = threadIds.slice(position, position + CHUNK * this.concurrency);
      position += chunk.length;
      const known = heads && !force ? await leasesOf(this.store).known(chunk) : new Map<string, SeenHead>();
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
      const slot = await this.slots?.acquire(signal, {
        deferMs: performance.now() - lastWorked < WARM_MS ? 0 : COLD_DEFER_MS,
      });
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
  private countedElsewhere(
    threadId: string,
    seenHead: string | undefined,
    known: SeenHead | undefined,
  ): ThreadOutcome | undefined {
    const { policy } = this.manager;
    if (
      seenHead === undefined ||
      known === undefined ||
      known.headId < seenHead ||
      policy.tokenLimit === undefined ||
      isOverLimit(policy, known.tokens)
    )
      return undefined;
    return {
      threadId,
      status: "skipped",
      reason: `counted by another worker: ${known.tokens} tokens, not over the limit of ${policy.tokenLimit}`,
      skip: "under limit",
      tokensBefore: known.tokens,
      knownHeadId: known.headId,
    };
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
  private async one(
    threadId: string,
    force: boolean,
    seenHead: string | undefined,
    signal?: AbortSignal,
  ): Promise<ThreadOutcome> {
    let lease: { taken: boolean; seen?: SeenHead };
    try {
      lease = await leasesOf(this.store).take(threadId, this.owner, this.leaseMs);
    } catch (error) {
      return {
        threadId,
        status: "failed",
        reason: "the lease could not be taken",
        error: asStoreError(error, threadId),
      };
    }
    if (!lease.taken) return { threadId, status: "skipped", reason: "leased", skip: "leased" };
    this.options.onLease?.({ threadId, owner: this.owner, event: "taken" });
    let seen: SeenHead | undefined;
    try {
      // Counted by another worker since the chunk's record was read.
      const counted = force ? undefined : this.countedElsewhere(threadId, seenHead, lease.seen);
      if (counted) return counted;
      const report = await this.manager.compactThread(
        { configurable: { thread_id: threadId } },
        // A worker never waits for a busy thread: the next pass sees it again.
        { busyWaitMs: 0, ...(force ? { force: true } : {}), ...(signal ? { signal } : {}) },
      );
      const headId = report.previousCheckpointId ?? undefined;
      if (report.status === "compacted") {
        seen = { headId: report.newCheckpointId, tokens: report.tokensAfter };
        return {
          threadId,
          status: "compacted",
          tokensBefore: report.tokensBefore,
          tokensAfter: report.tokensAfter,
          checkpointId: report.newCheckpointId,
          ...(headId ? { headId } : {}),
        };
      }
      if (headId && report.tokensBefore !== undefined) seen = { headId, tokens: report.tokensBefore };
      return {
        threadId,
        status: "skipped",
        reason: report.status === "conflict" ? `conflict: ${report.reason}` : report.reason,
        skip: this.skipKind(report),
        tokensBefore: report.tokensBefore,
        ...(headId ? { headId } : {}),
      };
    } catch (error) {
      // Stopping abandoned the summary in flight: nothing was written, and the lease goes back below.
      if (signal?.aborted)
        return {
          threadId,
          status: "skipped",
          reason: "stopped: the summary in flight was abandoned, nothing written",
          skip: "stopped",
        };
      const typed = asStoreError(error, threadId);
      return {
        threadId,
        status: "failed",
        reason: typed instanceof Error ? typed.message : String(typed),
        error: typed,
      };
    } finally {
      // Given back after the write (and the prune), with what was seen; a worker that dies here leaves it to expire.
      this.options.onLease?.({ threadId, owner: this.owner, event: "released" });
      await leasesOf(this.store)
        .release(threadId, this.owner, seen)
        .catch(() => undefined);
    }
  }
}
