/**
 * What a UI streaming an agent with in-graph compaction receives: the `"messages"` stream carries the model's messages
 * and the tools' results only — never the compaction's removal or its summary — and the `"custom"` stream announces
 * each compaction once (`{ type: "compaction", … }`, as `onCompaction` hears it), with the id of the summary that
 * now opens the state.
 */
import { AIMessageChunk, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { createAgent } from "langchain";
import { afterEach, beforeEach, expect, it } from "vitest";
import { isSummaryMessage } from "../../src/messages/summary-message.js";
import { compactionMiddleware } from "../../src/runtimes/in-graph/compaction-middleware.js";
import { compactionNode } from "../../src/runtimes/in-graph/compaction-node.js";
import type { CompactionStreamEvent, InGraphCompactionEvent } from "../../src/runtimes/in-graph/in-graph-options.js";
import { lookupPolicy, lookupTool } from "../support/agents.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";
import { createStore, type TestStore } from "../support/savers.js";

let store: TestStore;
beforeEach(async () => void (store = await createStore("sqlite")));
afterEach(async () => await store.close());

const ask = (turn: number) => ({
  messages: [
    new HumanMessage({
      id: `ask-${turn}`,
      content: `${turn % 3 === 0 ? `lookup INV-${turn}` : `Turn ${turn}: note the budget of project ${turn}`} for the quarterly review, please.`,
    }),
  ],
});

interface Streamed {
  messages: BaseMessage[];
  custom: CompactionStreamEvent[];
}

type Stream = (
  input: ReturnType<typeof ask>,
  config: { configurable: { thread_id: string }; streamMode: ["messages", "custom"] },
) => Promise<AsyncIterable<unknown>>;

async function streamTurns(stream: Stream, thread: string, turns: number): Promise<Streamed> {
  const seen: Streamed = { messages: [], custom: [] };
  for (let turn = 0; turn < turns; turn++) {
    for await (const chunk of await stream(ask(turn), {
      configurable: { thread_id: thread },
      streamMode: ["messages", "custom"],
    })) {
      const [mode, data] = chunk as [string, unknown];
      if (mode === "messages") seen.messages.push((data as [BaseMessage, unknown])[0]);
      else if (mode === "custom") seen.custom.push(data as CompactionStreamEvent);
    }
  }
  return seen;
}

function expectRenderable(seen: Streamed, heard: InGraphCompactionEvent[]): void {
  expect(heard.length).toBeGreaterThanOrEqual(2);
  expect(seen.messages.filter((message) => message.getType() === "remove").map((message) => message.id)).toEqual([]);
  expect(seen.messages.filter((message) => isSummaryMessage(message)).map((message) => message.id)).toEqual([]);
  expect(seen.messages.some((message) => AIMessageChunk.isInstance(message) || message.getType() === "ai")).toBe(true);
  expect(seen.custom).toEqual(heard.map((event) => ({ type: "compaction", ...event })));
  for (const event of seen.custom) expect(event.removed).toBeGreaterThan(0);
}

/** The in-graph options of both tests: compaction on every call over 400 tokens, each event heard. */
const options = (heard: InGraphCompactionEvent[]) => ({
  trigger: { tokens: 400 },
  lateness: 0,
  env: {},
  onCompaction: (event: InGraphCompactionEvent) => void heard.push(event),
});

it("createAgent with compactionMiddleware", async () => {
  const heard: InGraphCompactionEvent[] = [];
  const agent = createAgent({
    model: new ScriptedChatModel({ reply: lookupPolicy }),
    tools: [lookupTool],
    checkpointer: store.saver,
    middleware: [compactionMiddleware(options(heard))],
  });
  const seen = await streamTurns((input, config) => agent.stream(input, config), "middleware", 24);
  expectRenderable(seen, heard);
  const state = (await agent.graph.getState({ configurable: { thread_id: "middleware" } })).values
    .messages as BaseMessage[];
  expect(state.find((message) => isSummaryMessage(message))?.id).toBe(seen.custom.at(-1)!.summaryId);
});

it("createReactAgent with compactionNode as preModelHook", async () => {
  const heard: InGraphCompactionEvent[] = [];
  const agent = createReactAgent({
    llm: new ScriptedChatModel({ reply: lookupPolicy }),
    tools: [lookupTool],
    checkpointer: store.saver,
    preModelHook: compactionNode(options(heard)),
  });
  const seen = await streamTurns((input, config) => agent.stream(input, config), "node", 24);
  expectRenderable(seen, heard);
});
