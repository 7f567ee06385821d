/**
 * The first turn of a thread this wrapper has not counted yet (a new wrapper, after a restart): before it, the
 * stored head is read and counted only when the turn could start over the limit. The store's size of the head's
 * messages bounds their tokens from above (store/thread-store.ts `readHeadBytes`); when that bound and the input are
 * under `tokenLimit`, the scheduler could only say "go", and the turn runs without the read — its own result is
 * counted after it, as every turn's is. Otherwise (or where the store cannot say) the head is read first, as before.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { MAX_RATIO } from "../../engine/calibration.js";
import type { HistoryManager } from "../../engine/history-manager.js";
import { isOverLimit, type CompactionPolicy } from "../../engine/policy.js";
import { threadStoreFor } from "../../store/thread-store.js";
import type { ThreadRecord } from "./thread-records.js";

/**
 * Whether the turn of `record`'s thread starts without reading the head: its stored size and `input` are surely under
 * the limit. It then counts as a turn in flight, and as a call under the limit (`starting` would say "go").
 */
export async function startsUnread(record: ThreadRecord, manager: HistoryManager, input: readonly BaseMessage[], policy: CompactionPolicy): Promise<boolean> {
  if (!(await surelyUnderLimit(manager, record.threadId, input, policy))) return false;
  record.schedule.overLimit = 0;
  record.inFlight++;
  return true;
}

async function surelyUnderLimit(manager: HistoryManager, threadId: string, input: readonly BaseMessage[], policy: CompactionPolicy): Promise<boolean> {
  const bytes = await threadStoreFor(manager.checkpointer).readHeadBytes(threadId);
  if (bytes === undefined) return false;
  // The input in the provider's tokens, at the most the calibration allows (its ratio is not learned yet).
  const inputTokens = Math.ceil(manager.counter.countMessages(input) * MAX_RATIO);
  const bound = bytes + inputTokens;
  return !isOverLimit(policy, bound) && (policy.hardLimit === undefined || bound <= policy.hardLimit);
}
