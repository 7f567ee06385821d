/**
 * compactionMiddleware on a real createAgent graph (a scripted model, a tool) over MemorySaver, a SQLite file and
 * Postgres: the in-graph behaviour suite (test/support/in-graph-suite.ts), and bad options.
 */
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { createAgent } from "langchain";
import { isSummaryMessage } from "../../src/messages/summary-message.js";
import { describe, expect, it } from "vitest";
import { compactionMiddleware } from "../../src/runtimes/in-graph/compaction-middleware.js";
import { lookupPolicy, lookupTool } from "../support/agents.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";
import { inGraphBehaviour } from "../support/in-graph-suite.js";
import { createStore, SAVER_KINDS } from "../support/savers.js";

inGraphBehaviour({
  name: "compactionMiddleware on createAgent",
  kinds: SAVER_KINDS,
  build: (saver, options) => {
    const middleware = options ? compactionMiddleware(options) : undefined;
    const agent = createAgent({
      model: new ScriptedChatModel({ reply: lookupPolicy }),
      tools: [lookupTool],
      checkpointer: saver,
      systemPrompt: "You are the billing assistant.",
      middleware: middleware ? [middleware] : [],
    });
    return Object.assign(agent, { idle: async () => await middleware?.idle() });
  },
});

describe("compactionMiddleware refuses bad options", () => {
  it("names the option and its value", async () => {
    const store = await createStore("memory");
    expect(() => compactionMiddleware({ env: {} })).toThrow(/needs a trigger/);
    expect(() => compactionMiddleware({ trigger: { tokens: -5 }, env: {} })).toThrow(/trigger.tokens.*-5/);
    expect(() =>
      compactionMiddleware({ trigger: { tokens: 900 }, background: "yes" as unknown as boolean, env: {} }),
    ).toThrow(/background.*yes/);
    await store.close();
  });
});

describe("compactionMiddleware adds no graph step", () => {
  it("a turn writes the checkpoints it writes without the middleware, and a compaction lands in the model call's own update", async () => {
    const store = await createStore("sqlite");
    try {
      const agent = (middleware: ReturnType<typeof compactionMiddleware>[]) =>
        createAgent({
          model: new ScriptedChatModel({ reply: lookupPolicy }),
          tools: [lookupTool],
          checkpointer: store.saver,
          systemPrompt: "You are the billing assistant.",
          middleware,
        });
      const checkpoints = async (threadId: string) => {
        let count = 0;
        for await (const _ of store.saver.list({ configurable: { thread_id: threadId } })) count++;
        return count;
      };
      const compactions: number[] = [];
      const middleware = compactionMiddleware({
        trigger: { tokens: 400 },
        lateness: 0,
        env: {},
        onCompaction: (event) => void compactions.push(event.messagesAfter),
      });
      const plain = agent([]);
      const compacting = agent([middleware]);
      // Back to back, the same turns (every third one calls the tool), on two threads.
      for (let turn = 0; turn < 24; turn++) {
        const ask = (thread: string) => ({
          messages: [
            new HumanMessage({
              id: `${thread}-${turn}`,
              content: `${turn % 3 === 0 ? `lookup INV-${turn}` : `Turn ${turn}: note the budget of project ${turn}`} for the quarterly review, please.`,
            }),
          ],
        });
        await plain.invoke(ask("plain"), { configurable: { thread_id: "plain" } });
        await compacting.invoke(ask("compacting"), { configurable: { thread_id: "compacting" } });
      }
      expect(compactions.length).toBeGreaterThanOrEqual(2);
      expect(await checkpoints("compacting")).toBe(await checkpoints("plain"));
      const head = (await compacting.graph.getState({ configurable: { thread_id: "compacting" } })).values
        .messages as BaseMessage[];
      expect(head.filter(isSummaryMessage)).toHaveLength(1);
      expect(head.at(-1)!.getType()).toBe("ai");
      expect(new Set(head.map((message) => message.id)).size).toBe(head.length);
    } finally {
      await store.close();
    }
  });
});
