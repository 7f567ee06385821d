/**
 * A thread this wrapper has not counted yet (a new wrapper, after a restart) is counted only once it could be over
 * the limit. The store's size of the head's messages bounds their tokens from above (store/thread-store.ts
 * `readHeadBytes`); while that bound (and the input) is under `tokenLimit`, the scheduler could only say "go" before
 * a turn and "none" after it, so the turn runs without reading the head first, and its result is not tokenized after
 * it. Otherwise (or where the store cannot say, or the application counts with its own `tokenCounter`) the head is
 * read and counted, as every counted thread's is.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { latestUsage, MAX_RATIO } from "../../engine/calibration.js";
import type { HistoryManager } from "../../engine/history-manager.js";
import { threadStoreFor } from "../../store/thread-store.js";
import type { ThreadRecord } from "./thread-records.js";

/**
 * Whether the turn of `record`'s thread starts without reading the head: its stored size and `input` are surely under
 * the limit. It then counts as a turn in flight, and as a call under the limit (`starting` would say "go").
 */
export async function startsUnread(
  record: ThreadRecord,
  manager: HistoryManager,
  input: readonly BaseMessage[],
): Promise<boolean> {
  if (!(await surelyUnderLimit(manager, record, input))) return false;
  record.compaction.under();
  record.compaction.inFlight++;
  return true;
}

/**
 * After a turn of `record`'s thread that is not counted yet (no compaction of it under way): whether it stays
 * uncounted, its stored size still under the limit (`ended` could only say "none"). The provider's figures of the
 * turn's last call are kept all the same.
 */
export async function staysUncounted(
  record: ThreadRecord,
  manager: HistoryManager,
  messages: readonly BaseMessage[],
): Promise<boolean> {
  if (record.count !== undefined || record.compaction.preparing || record.compaction.ready) return false;
  if (!(await surelyUnderLimit(manager, record, []))) return false;
  record.compaction.under();
  record.usage = latestUsage(messages);
  return true;
}

/** Whether the stored head of `threadId` and `input` are surely under the limit (and `hardLimit`), by their size. */
async function surelyUnderLimit(
  manager: HistoryManager,
  { threadId, compaction }: ThreadRecord,
  input: readonly BaseMessage[],
): Promise<boolean> {
  // The application's own counter is bounded by nothing the store can say.
  if (manager.calibration.custom) return false;
  const bytes = await threadStoreFor(manager.checkpointer).readHeadBytes(threadId);
  if (bytes === undefined) return false;
  // The input in the provider's tokens, at the most the calibration allows (its ratio is not learned yet).
  const inputTokens = Math.ceil(manager.counter.countMessages(input) * MAX_RATIO);
  return compaction.surelyUnder(bytes + inputTokens);
}
