/**
 * The best-effort swap for any other saver (MemorySaver, a user's own): the check of the head and `put` run back to
 * back in this process, guarded by the HistoryManager's per-thread lock; the recall index is the in-process one.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { headVerdict, type CompareAndSwapWriter, type WriteOutcome, type WriteRequest } from "./compare-and-swap.js";
import { memoryRecallFor } from "./recall-index/memory-index.js";

export class GenericWriter implements CompareAndSwapWriter {
  readonly backend = "generic" as const;
  constructor(private readonly saver: BaseCheckpointSaver) {}

  async write(request: WriteRequest): Promise<WriteOutcome> {
    const { threadId, expectedCheckpointId, proposedVersion, build, recall } = request;
    const head = await this.saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } });
    const refused = headVerdict(request, head?.checkpoint.id ?? null, head?.pendingWrites?.length ?? 0);
    if (refused) return refused;
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
