/**
 * A thread whose head holds `messages`, written as a graph's first checkpoint would be (a `messages` channel at
 * version 1): for benchmarks and tests that start from a long stored thread without running its turns.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { emptyCheckpoint, uuid6, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";

export async function seedHead(
  saver: BaseCheckpointSaver,
  threadId: string,
  messages: readonly BaseMessage[],
): Promise<void> {
  const checkpoint = emptyCheckpoint();
  checkpoint.id = uuid6(0);
  checkpoint.channel_values = { messages };
  checkpoint.channel_versions = { messages: 1 };
  await saver.put(
    { configurable: { thread_id: threadId, checkpoint_ns: "" } },
    checkpoint,
    { source: "input", step: 0, parents: {} },
    { messages: 1 },
  );
}
