/**
 * The wrapper's archive step: the large tool outputs of the thread's head moved to the archive and the history
 * force-written with pointers (compare-and-swap on the head that was read; a thread that moved or is busy is left for
 * the next turn). The store is written first, so a pointer never names a missing output.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { OutputArchive } from "../../archive/types.js";
import type { HistoryManager } from "../../engine/history-manager.js";
import { outcomeOfWriteError } from "../../engine/write-history.js";

/** The new history, or undefined when nothing changed. */
export async function archiveThread(
  manager: HistoryManager,
  archive: OutputArchive,
  threadId: string,
): Promise<BaseMessage[] | undefined> {
  const head = await manager.store.readHead(threadId);
  if (!head || head.busyReason) return undefined;
  const { messages, archived } = await archive.archive(head.messages, { threadId });
  if (archived.length === 0) return undefined;
  try {
    await manager.replaceReadHead(threadId, head, messages, {
      compaction: { replacedCheckpointId: head.tuple.checkpoint.id, archived },
    });
    return messages;
  } catch (error) {
    if (outcomeOfWriteError(error)) return undefined;
    throw error;
  }
}
