/**
 * The best-effort swap for any other saver (MemorySaver, a user's own): the check of the head and `put` run back to
 * back in this process, guarded by the HistoryManager's per-thread lock; the recall index is the in-process one.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import type { CompareAndSwapWriter, WriteOutcome, WriteRequest } from "./compare-and-swap.js";
import { memoryRecallFor } from "./recall-index/memory-index.js";

export class GenericWriter implements CompareAndSwapWriter {
  readonly backend = "generic" as const;
  constructor(private readonly saver: BaseCheckpointSaver) {}

  async write({
    threadId,
    expectedCheckpointId,
    proposedVersion,
    build,
    ignorePendingWrites = false,
    recall,
  }: WriteRequest): Promise<WriteOutcome> {
    const head = await this.saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } });
    const current = head?.checkpoint.id ?? null;
    if (current !== expectedCheckpointId) {
      return {
        status: "conflict",
        reason: `the head moved from ${expectedCheckpointId} to ${current ?? "nothing"}`,
        headCheckpointId: current,
      };
    }
    if ((head?.pendingWrites?.length ?? 0) > 0 && !ignorePendingWrites) {
      return { status: "busy", reason: "the head has pending writes: a run is in progress or interrupted" };
    }
    const { checkpoint, metadata, newVersions } = build(proposedVersion);
    await this.saver.put(
      { configurable: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: expectedCheckpointId } },
      checkpoint,
      metadata,
      newVersions,
    );
    // In this process, right after the put, under the HistoryManager's per-thread lock (best effort, as the write).
    if (recall) memoryRecallFor(this.saver).apply(recall);
    return { status: "written" };
  }
}
