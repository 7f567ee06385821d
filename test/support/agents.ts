/**
 * Real compiled graphs for the tests: a createReactAgent with a scripted model and a tool.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { z } from "zod";
import { ScriptedChatModel, type ReplyPolicy } from "./fakes/scripted-chat-model.js";

export const lookupTool = tool(
  async ({ query }: { query: string }) => `Record for ${query}: owner Dana Okafor, budget 4,200 EUR, due 2026-03-14.`,
  {
    name: "lookup",
    description: "Look a record up by name.",
    schema: z.object({ query: z.string().describe("What to look up") }),
  },
);

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
    const text = turnText(index, prefix);
    await agent.invoke(
      { messages: [new HumanMessage({ id: `${prefix}-${threadId}-${index}`, content: text })] },
      { configurable: { thread_id: threadId } },
    );
  }
}

/**
 * The messages `runTurns` leaves in a thread, built without running the graph: a human message per turn, and the
 * agent's answer (for a "lookup" turn, its tool call, the tool's result and the answer after it).
 */
export function turnMessages(
  threadId: string,
  turns: number,
  { from = 0, prefix = "turn" }: { from?: number; prefix?: string } = {},
): BaseMessage[] {
  const messages: BaseMessage[] = [];
  for (let index = from; index < from + turns; index++) {
    const text = turnText(index, prefix);
    messages.push(new HumanMessage({ id: `${prefix}-${threadId}-${index}`, content: text }));
    const query = /lookup (\S+)/i.exec(text)?.[1];
    if (query === undefined) {
      messages.push(new AIMessage({ id: `reply-${threadId}-${index}`, content: `You said: ${text.slice(0, 120)}` }));
      continue;
    }
    const call = { id: `call-${threadId}-${index}`, name: "lookup", args: { query }, type: "tool_call" as const };
    const result = `Record for ${query}: owner Dana Okafor, budget 4,200 EUR, due 2026-03-14.`;
    messages.push(
      new AIMessage({ id: `call-${threadId}-${index}`, content: "", tool_calls: [call] }),
      new ToolMessage({ id: `result-${threadId}-${index}`, content: result, tool_call_id: call.id, name: "lookup" }),
      new AIMessage({ id: `reply-${threadId}-${index}`, content: `Done: ${result.slice(0, 80)}` }),
    );
  }
  return messages;
}

/**
 * A thread holding what `turns` turns of runTurns leave, written by one run of the agent: the first turns' messages
 * as its input, the last turn answered by the agent. Far cheaper than `turns` runs, for tests that need a long thread
 * and not its checkpoints one per turn.
 */
export async function seedTurns(
  agent: ReturnType<typeof createTestAgent>["agent"],
  threadId: string,
  turns: number,
): Promise<void> {
  const last = new HumanMessage({ id: `turn-${threadId}-${turns - 1}`, content: turnText(turns - 1, "turn") });
  await agent.invoke(
    { messages: [...turnMessages(threadId, turns - 1), last] },
    { configurable: { thread_id: threadId } },
  );
}

function turnText(index: number, prefix: string): string {
  return index % 3 === 2
    ? `lookup project-${index} please`
    : `${prefix} ${index}: the invoice total for order ord_${1000 + index} is ${index * 17} EUR, decided by Alice Moreau.`;
}

export const BILLING_SYSTEM = new SystemMessage({
  id: "system-1",
  content: "You are the billing assistant. Answer briefly.",
});

/** A thread opened with a system message and a greeting, then `turns` turns of runTurns. */
export async function seedThread(
  agent: ReturnType<typeof createTestAgent>["agent"],
  threadId: string,
  turns: number,
): Promise<void> {
  await agent.invoke(
    {
      messages: [
        BILLING_SYSTEM,
        new HumanMessage({ id: `first-${threadId}`, content: "Hello, I am Bob Tanaka from the billing team." }),
      ],
    },
    { configurable: { thread_id: threadId } },
  );
  await runTurns(agent, threadId, turns);
}
