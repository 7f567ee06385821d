/**
 * A worker process's sweep of the store: a job for every thread whose head changed since this process last swept
 * (every thread at its first sweep), to start once the thread is idle; and the compactions a run superseded, found
 * from the store: each reported once by this process, its checkpoint deleted where nothing is lost by it
 * (engine/superseded-write.ts), and its thread sent a job again.
 */
import { settleWrite } from "../../engine/superseded-write.js";
import { checkpointIdAt, checkpointTime } from "../../store/checkpoint-time.js";
import type { ThreadStore } from "../../store/thread-store.js";
import { sendCompaction, type JobQueue } from "./compaction-queue.js";
import type { ThreadOutcome } from "./worker-options.js";

/** How far before the newest head seen a sweep looks again (a turn committed late). */
const LOOKBACK_MS = 60_000;

export class StoreSweep {
  /** The head each thread had when this process last sent it a job or compacted it. */
  private readonly sent = new Map<string, string>();
  /** When the newest head this process swept was written (ms). */
  private newest?: number;
  /** Superseded writes this process reported (not reported again). */
  private readonly settled = new Set<string>();

  constructor(
    private readonly store: ThreadStore,
    private readonly idleMs: number,
    private readonly onSuperseded: (outcome: ThreadOutcome) => void,
  ) {}

  /** This process wrote `checkpointId` as the thread's head: a sweep sends no job for it. */
  wrote(threadId: string, checkpointId: string): void {
    this.sent.set(threadId, checkpointId);
  }

  /** `active`: the threads whose job runs in this process now (sent one when it ends, if they need one). */
  async run(queue: JobQueue, active: ReadonlySet<string>): Promise<{ changed: number; superseded: number }> {
    // Heads written since the newest one seen, less a minute: a turn's id is made before its write commits, so a
    // slower commit can land with an id below one already seen.
    const cursor = this.newest === undefined ? "" : checkpointIdAt(this.newest - LOOKBACK_MS);
    let changed = 0;
    for (const { threadId, headCheckpointId } of await this.store.changedSince(cursor)) {
      const written = checkpointTime(headCheckpointId) ?? 0;
      if (written > (this.newest ?? 0)) this.newest = written;
      if (this.sent.get(threadId) === headCheckpointId || active.has(threadId)) continue;
      this.sent.set(threadId, headCheckpointId);
      changed++;
      await sendCompaction(queue, threadId, new Date(written + this.idleMs));
    }
    let superseded = 0;
    for (const { threadId, headCheckpointId: writtenId } of await this.store.strandedWrites(cursor)) {
      if (this.settled.has(writtenId)) continue;
      const settled = await settleWrite(this.store, threadId, writtenId);
      if (settled.fate === "in line") continue;
      this.settled.add(writtenId);
      superseded++;
      const fate = settled.removed
        ? "its checkpoint was deleted"
        : "its checkpoint stays (the store cannot delete it, or a run started from it)";
      this.onSuperseded({
        threadId,
        status: "superseded",
        checkpointId: writtenId,
        reason: `a run that had read the thread before this compaction wrote from its parent; nothing is lost, ${fate}`,
      });
      if (!active.has(threadId)) await sendCompaction(queue, threadId, new Date(Date.now() + this.idleMs));
    }
    return { changed, superseded };
  }
}
