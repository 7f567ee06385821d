/** The agent both processes of the busy-thread bench run: a ReAct agent with an instant scripted model. */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { ScriptedChatModel } from "../../test/support/fakes/scripted-chat-model.js";

export const TURN_INTERVAL_MS = 100;

export function userTurn(who: string, index: number): string {
  return `${who} turn ${index}: the invoice ord_${1000 + index} totals ${(index * 37) % 900} EUR, approved by Alice Moreau.`;
}

export function busyAgent(
  saver: BaseCheckpointSaver,
  onCall?: (messages: import("@langchain/core/messages").BaseMessage[]) => void,
) {
  const model = new ScriptedChatModel({
    reply: (messages) => {
      onCall?.(messages);
      return { content: `Noted: ${String(messages.at(-1)!.content).slice(0, 80)}` };
    },
  });
  return createReactAgent({ llm: model, tools: [], checkpointer: saver });
}
