/**
 * The recall index as its readers see it: the entries of messages out of the thread's head (recall/out-of-head.ts).
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { HeadView } from "../../src/recall/out-of-head.js";
import { threadStoreFor } from "../../src/store/thread-store.js";
import type { RecallEntry } from "../../src/store/recall-index/types.js";

export async function entriesOutOfHead(saver: BaseCheckpointSaver, threadId: string): Promise<RecallEntry[]> {
  const tuple = await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } });
  const head = new HeadView(
    ((tuple?.checkpoint.channel_values as { messages?: BaseMessage[] } | undefined)?.messages ?? []) as BaseMessage[],
  );
  return (await threadStoreFor(saver).recall.entries(threadId)).filter((entry) => head.outOfHead(entry));
}
