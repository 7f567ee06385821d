/**
 * What the store holds, when the process that wrote a compaction could not say (a compaction worker thread that died
 * after its commit, before its answer): the summary's message id is in the thread's head, or in a newer checkpoint's
 * messages, exactly when its compaction landed. Reported as landed then, not as "nothing was written".
 */
import type { HistoryManager } from "./history-manager.js";
import type { CompactedReport } from "./report.js";

export interface WrittenElsewhere {
  threadId: string;
  /** The id of the summary message the compaction writes. */
  summaryId: string;
  summarizer: string;
  snapshotCheckpointId: string;
  messagesBefore: number;
  tokensBefore: number;
}

/** Checkpoints read back from the head at most: a compaction is found in its own checkpoint or the turns after it. */
const LOOK_BACK = 50;

/** The report of `compaction` if it landed (read from the store), else undefined. */
export async function readBackCompaction(manager: HistoryManager, compaction: WrittenElsewhere): Promise<CompactedReport | undefined> {
  const { threadId, summaryId } = compaction;
  const head = await manager.store.readHead(threadId);
  if (!head?.messages.some((message) => message.id === summaryId)) return undefined;
  let written: { id: string; parent: string | null } | undefined;
  for await (const tuple of manager.checkpointer.list({ configurable: { thread_id: threadId, checkpoint_ns: "" } }, { limit: LOOK_BACK })) {
    const marked = (tuple.metadata as { compaction?: { summaryId?: string } } | undefined)?.compaction;
    if (marked?.summaryId !== summaryId) continue;
    written = { id: tuple.checkpoint.id, parent: (tuple.parentConfig?.configurable?.checkpoint_id as string | undefined) ?? null };
    break;
  }
  const messagesAfter = head.messages.length;
  return {
    status: "compacted",
    threadId,
    reason: "written by a compaction worker that stopped before it could say so (read back from the store)",
    previousCheckpointId: written?.parent ?? compaction.snapshotCheckpointId,
    newCheckpointId: written?.id ?? head.tuple.checkpoint.id,
    summarizer: compaction.summarizer,
    attempts: 1,
    messagesBefore: compaction.messagesBefore,
    tokensBefore: compaction.tokensBefore,
    messagesAfter,
    tokensAfter: manager.counter.countMessages(head.messages),
    summaryId,
    summarizerMs: 0,
    writeMs: 0,
  };
}
