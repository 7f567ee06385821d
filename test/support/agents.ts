/**
 * Real compiled graphs for the tests: a createReactAgent with a scripted model and a tool.
 */
import { HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { z } from "zod";
import { ScriptedChatModel, type ReplyPolicy } from "./fakes/scripted-chat-model.js";

export const lookupTool = tool(async ({ query }: { query: string }) => `Record for ${query}: owner Dana Okafor, budget 4,200 EUR, due 2026-03-14.`, {
  name: "lookup",
  description: "Look a record up by name.",
  schema: z.object({ query: z.string().describe("What to look up") }),
});

function lastHumanText(messages: BaseMessage[]): string {
  const human = [...messages].reverse().find((message) => message.getType() === "human");
  return human ? String(human.content) : "";
}

/** Calls `lookup` when the user says "lookup X", then answers; otherwise answers at once. */
export const lookupPolicy: ReplyPolicy = (messages) => {
  const last = messages.at(-1)!;
  if (ToolMessage.isInstance(last)) return { content: `Done: ${String(last.content).slice(0, 80)}` };
  const text = lastHumanText(messages);
  const match = /lookup (\S+)/i.exec(text);
  if (match && HumanMessage.isInstance(last)) return { toolCalls: [{ name: "lookup", args: { query: match[1] } }] };
  return { content: `You said: ${text.slice(0, 120)}` };
};

export function createTestAgent(checkpointer: BaseCheckpointSaver, policy: ReplyPolicy = lookupPolicy) {
  const model = new ScriptedChatModel({ reply: policy });
  const agent = createReactAgent({ llm: model, tools: [lookupTool], checkpointer });
  return { agent, model };
}

/** Run `turns` user turns on `threadId`; every third one triggers a tool call. */
export async function runTurns(
  agent: ReturnType<typeof createTestAgent>["agent"],
  threadId: string,
  turns: number,
  { from = 0, prefix = "turn" }: { from?: number; prefix?: string } = {},
): Promise<void> {
  for (let index = from; index < from + turns; index++) {
    const text = index % 3 === 2 ? `lookup project-${index} please` : `${prefix} ${index}: the invoice total for order ord_${1000 + index} is ${index * 17} EUR, decided by Alice Moreau.`;
    await agent.invoke({ messages: [new HumanMessage({ id: `${prefix}-${threadId}-${index}`, content: text })] }, { configurable: { thread_id: threadId } });
  }
}

export const BILLING_SYSTEM = new SystemMessage({ id: "system-1", content: "You are the billing assistant. Answer briefly." });

/** A thread opened with a system message and a greeting, then `turns` turns of runTurns. */
export async function seedThread(agent: ReturnType<typeof createTestAgent>["agent"], threadId: string, turns: number): Promise<void> {
  await agent.invoke(
    { messages: [BILLING_SYSTEM, new HumanMessage({ id: `first-${threadId}`, content: "Hello, I am Bob Tanaka from the billing team." })] },
    { configurable: { thread_id: threadId } },
  );
  await runTurns(agent, threadId, turns);
}
