import { AIMessage } from "@langchain/core/messages";
import { MemorySaver, MessagesAnnotation, StateGraph } from "@langchain/langgraph";

/** A one-node graph whose replies are long enough to need compaction after a few turns. */
export function buildGraph() {
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state) => ({
      messages: [new AIMessage(`reply ${state.messages.length}: ${"the budget stays at 18,500 EUR. ".repeat(20)}`)],
    }))
    .addEdge("__start__", "agent")
    .compile({ checkpointer: new MemorySaver() });
}

export function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`check failed: ${what}`);
}
