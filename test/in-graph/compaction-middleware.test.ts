/**
 * compactionMiddleware on a real createAgent graph (a scripted model, a tool, a real SQLite file and the other
 * savers): over the limit it compacts before the model call through the graph's own state update, and nothing is
 * lost — every message the application saw is in the head or in the transcript, in order; the head's tool pairs are
 * valid; a pinned message stays; a summarizer that fails changes nothing and the turn goes on.
 */
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { createAgent } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateHistory } from "../../src/messages/validate.js";
import { getSummaryProvenance } from "../../src/messages/summary-message.js";
import { pinMessage } from "../../src/messages/pins.js";
import { readTranscript } from "../../src/recall/transcript.js";
import { compactionMiddleware } from "../../src/runtimes/in-graph/compaction-middleware.js";
import type { Summarizer } from "../../src/summarizers/types.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { lookupPolicy, lookupTool } from "../support/agents.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";
import { createStore, SAVER_KINDS, type TestStore } from "../support/savers.js";

const LIMIT = 900;
const config = (thread: string) => ({ configurable: { thread_id: thread } });

function agentWith(saver: BaseCheckpointSaver, options: Partial<Parameters<typeof compactionMiddleware>[0]> = {}) {
  const events = { compactions: 0, errors: [] as unknown[] };
  const middleware = compactionMiddleware({
    checkpointer: saver,
    tokenLimit: LIMIT,
    env: {},
    onCompaction: () => void events.compactions++,
    onCompactionError: (error) => void events.errors.push(error),
    ...options,
  });
  const agent = createAgent({ model: new ScriptedChatModel({ reply: lookupPolicy }), tools: [lookupTool], checkpointer: saver, systemPrompt: "You are the billing assistant.", middleware: [middleware] });
  return { agent, events };
}

function turnText(index: number): string {
  return index % 3 === 2 ? `lookup project-${index} please` : `turn ${index}: the invoice total for order ord_${1000 + index} is ${index * 17} EUR, decided by Alice Moreau.`;
}

/** What the tests use of a compiled agent. */
interface Agent {
  invoke(input: { messages: BaseMessage[] }, config: { configurable: { thread_id: string } }): Promise<{ messages: unknown }>;
  getState(config: { configurable: { thread_id: string } }): Promise<{ values: unknown }>;
}

async function play(agent: Agent, thread: string, turns: number, first?: BaseMessage): Promise<Map<string, BaseMessage>> {
  const seen = new Map<string, BaseMessage>();
  for (let index = 0; index < turns; index++) {
    const input = [...(index === 0 && first ? [first] : []), new HumanMessage({ id: `${thread}-${index}`, content: turnText(index) })];
    const result = await agent.invoke({ messages: input }, config(thread));
    for (const message of result.messages as BaseMessage[]) if (message.id && !getSummaryProvenance(message) && !seen.has(message.id)) seen.set(message.id, message);
  }
  return seen;
}

async function head(agent: Agent, thread: string): Promise<BaseMessage[]> {
  return ((await agent.getState(config(thread))).values as { messages: BaseMessage[] }).messages;
}

for (const kind of SAVER_KINDS) {
  describe(`compactionMiddleware on createAgent (${kind})`, () => {
    let store: TestStore;
    beforeAll(async () => void (store = await createStore(kind)));
    afterAll(async () => await store.close());

    it("compacts before the model call, keeps the head under the limit and loses no message", async () => {
      const { agent, events } = agentWith(store.saver);
      const seen = await play(agent, "mw-lossless", 30);
      expect(events.errors).toEqual([]);
      expect(events.compactions).toBeGreaterThan(1);
      const messages = await head(agent, "mw-lossless");
      expect(messages.some((message) => getSummaryProvenance(message))).toBe(true);
      expect(validateHistory(messages)).toEqual([]);
      expect(new TokenCounter().countMessages(messages)).toBeLessThanOrEqual(LIMIT);
      // Every message the application saw, in the order it saw them: the transcript, then the head.
      const page = await readTranscript(store.saver, config("mw-lossless"), { limit: 10_000 });
      const ids = page.messages.filter((line) => line.source !== "summary").map((line) => line.message.id);
      expect(ids).toEqual([...seen.keys()]);
      for (const line of page.messages) {
        const original = line.message.id ? seen.get(line.message.id) : undefined;
        if (original) expect(line.message.content).toEqual(original.content);
      }
    });

    it("keeps a pinned message verbatim through every compaction", async () => {
      const pinned = pinMessage(new HumanMessage({ id: "mw-pin", content: "Ground rule: every refund above 500 EUR needs Priya Raman's approval." }));
      const { agent, events } = agentWith(store.saver);
      await play(agent, "mw-pinned", 24, pinned);
      expect(events.compactions).toBeGreaterThan(0);
      const kept = (await head(agent, "mw-pinned")).find((message) => message.id === "mw-pin");
      expect(kept?.content).toBe(pinned.content);
    });

    it("a summarizer that fails writes nothing: the history is the uncompacted one and every turn is answered", async () => {
      const failing: Summarizer = {
        name: "failing",
        summarize: async () => {
          throw new Error("provider down");
        },
      };
      const { agent, events } = agentWith(store.saver, { summarizer: failing });
      const plain = createAgent({ model: new ScriptedChatModel({ reply: lookupPolicy }), tools: [lookupTool], checkpointer: store.saver, systemPrompt: "You are the billing assistant." });
      const turns = 24;
      await play(agent, "mw-failing", turns);
      await play(plain, "mw-plain", turns);
      expect(events.compactions).toBe(0);
      expect(events.errors.length).toBeGreaterThan(0);
      expect(events.errors).toEqual(events.errors.map(() => expect.objectContaining({ code: "SUMMARIZER_FAILED" })));
      const failed = await head(agent, "mw-failing");
      const reference = await head(agent, "mw-plain");
      expect(failed.map((message) => [message.getType(), message.content])).toEqual(reference.map((message) => [message.getType(), message.content]));
      expect(failed.at(-1)!.getType()).toBe("ai");
    });
  });
}

describe("compactionMiddleware refuses bad options", () => {
  it("names the option and its value", async () => {
    const store = await createStore("memory");
    expect(() => compactionMiddleware({ checkpointer: store.saver, env: {} })).toThrow(/tokenLimit/);
    expect(() => compactionMiddleware({ checkpointer: store.saver, tokenLimit: -5, env: {} })).toThrow(/tokenLimit.*-5/);
    await store.close();
  });
});
