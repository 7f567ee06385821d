/**
 * The transcript in the graph's BaseStore: when the checkpointer keeps no index of its own (a MemorySaver, the
 * Agent Server's, none at all), the in-graph runtime writes what it takes out of the state under
 * ["langgraph-compaction", "transcript", <thread>]; readTranscript, searchHistory and the search_history tool (which
 * finds the graph's store and checkpointer by itself) read it there. A graph with neither compacts its state only.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import { createAgent } from "langchain";
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, inject, it } from "vitest";
import { getSummaryProvenance } from "../../src/messages/summary-message.js";
import { searchHistory } from "../../src/recall/search.js";
import { createHistorySearchTool, HISTORY_SEARCH_TOOL } from "../../src/recall/tool.js";
import { readTranscript } from "../../src/recall/transcript.js";
import { compactionMiddleware } from "../../src/runtimes/in-graph/compaction-middleware.js";
import { transcriptNamespace } from "../../src/store/recall-index/base-store-index.js";
import { lookupPolicy, lookupTool } from "../support/agents.js";
import { ScriptedChatModel, type ReplyPolicy } from "../support/fakes/scripted-chat-model.js";
import { turnText } from "../support/in-graph-suite.js";

/** "search X" calls search_history with X and answers with what it found; the rest as lookupPolicy. */
const searchingPolicy: ReplyPolicy = (messages, context) => {
  const last = messages.at(-1)!;
  if (ToolMessage.isInstance(last) && last.name === HISTORY_SEARCH_TOOL)
    return { content: `Found: ${String(last.content)}` };
  const match = HumanMessage.isInstance(last) ? /^search (.+)$/.exec(String(last.content)) : null;
  if (match) return { toolCalls: [{ name: HISTORY_SEARCH_TOOL, args: { query: match[1] } }] };
  return lookupPolicy(messages, context);
};

const config = (thread: string) => ({ configurable: { thread_id: thread } });

const opened: PostgresStore[] = [];
afterAll(async () => {
  for (const store of opened) await store.stop();
});

describe.each([
  ["InMemoryStore (the Agent Server's in development)", async () => new InMemoryStore()],
  [
    "PostgresStore (the Agent Server's in production)",
    async () => {
      const store = PostgresStore.fromConnString(inject("postgresUrl"), {
        schema: `transcript${randomUUID().replace(/-/g, "").slice(0, 10)}`,
      });
      await store.setup();
      opened.push(store);
      return store;
    },
  ],
] as Array<[string, () => Promise<BaseStore>]>)("the transcript in the graph's BaseStore: %s", (_, open) => {
  it("holds every message compaction took out of a MemorySaver graph; the tool, searchHistory and readTranscript find it", async () => {
    const saver = new MemorySaver();
    const store = await open();
    let compactions = 0;
    const agent = createAgent({
      model: new ScriptedChatModel({ reply: searchingPolicy }),
      tools: [lookupTool, createHistorySearchTool()],
      checkpointer: saver,
      store,
      // Before the call, so the compactions do not depend on when a summary run off the call lands (machine load).
      middleware: [
        compactionMiddleware({
          trigger: { tokens: 900 },
          env: {},
          background: false,
          onCompaction: () => void compactions++,
        }),
      ],
    });
    const seen = new Map<string, BaseMessage>();
    for (let index = 0; index < 30; index++) {
      const result = await agent.invoke(
        { messages: [new HumanMessage({ id: `s-${index}`, content: turnText(index) })] },
        config("store-thread"),
      );
      for (const message of result.messages as BaseMessage[])
        if (message.id && !getSummaryProvenance(message) && !seen.has(message.id)) seen.set(message.id, message);
    }
    expect(compactions).toBeGreaterThan(1);
    const items = await store.search(transcriptNamespace("store-thread"), { limit: 1_000 });
    expect(items.length).toBeGreaterThan(20);
    expect(items.map((item) => item.key)).toContain("s-0");
    // Nothing lost: the store's transcript then the head is every message, in order.
    const page = await readTranscript(saver, config("store-thread"), { limit: 10_000, store });
    expect(page.messages.filter((line) => line.source !== "summary").map((line) => line.message.id)).toEqual([
      ...seen.keys(),
    ]);
    expect(page.messages.filter((line) => line.source === "transcript")).toHaveLength(items.length);
    // The early fact, compacted away, comes back through searchHistory and through the agent's own tool.
    const hits = await searchHistory(saver, config("store-thread"), "ord_1003", { store });
    expect(hits[0]?.text).toContain("ord_1003");
    const answer = await agent.invoke(
      { messages: [new HumanMessage({ id: "s-ask", content: "search ord_1003 invoice total" })] },
      config("store-thread"),
    );
    const found = (answer.messages as BaseMessage[]).findLast(
      (message) => ToolMessage.isInstance(message) && message.name === HISTORY_SEARCH_TOOL,
    );
    expect(String(found?.content)).toContain("ord_1003 is 51 EUR");
  });

  it("a graph without a checkpointer keeps its transcript in the store when it has one, and compacts its state either way", async () => {
    const history = Array.from({ length: 24 }, (_, index) =>
      index % 2 === 0
        ? new HumanMessage({ id: `h-${index}`, content: turnText(index) })
        : new AIMessage({ id: `h-${index}`, content: `Noted: ${turnText(index)}` }),
    );
    for (const store of [await open(), undefined]) {
      let compactions = 0;
      const agent = createAgent({
        model: new ScriptedChatModel({ reply: lookupPolicy }),
        tools: [lookupTool],
        ...(store ? { store } : {}),
        middleware: [
          compactionMiddleware({
            trigger: { tokens: 400 },
            env: {},
            background: false,
            onCompaction: () => void compactions++,
          }),
        ],
      });
      const result = await agent.invoke(
        { messages: [...history, new HumanMessage({ id: "h-last", content: "What was decided?" })] },
        config("stateless"),
      );
      expect(compactions).toBe(1);
      expect((result.messages as BaseMessage[]).some((message) => getSummaryProvenance(message))).toBe(true);
      if (store) {
        const hits = await searchHistory(undefined, config("stateless"), "ord_1000", { store });
        expect(hits.map((hit) => hit.messageId)).toContain("h-0");
      } else {
        await expect(searchHistory(undefined, config("stateless"), "ord_1000")).rejects.toMatchObject({
          code: "MISSING_CHECKPOINTER",
        });
      }
    }
  });
});

describe("the transcript's namespace", () => {
  it("a thread id is one namespace label that every store accepts, one to one", () => {
    expect(transcriptNamespace("a.b/c_d%e")).toEqual(["langgraph-compaction", "transcript", "a~2Eb~2Fc~5Fd~25e"]);
    expect(transcriptNamespace("7f1c2a9e-0b4d-4c6e-9a1f-3d2e5b6c7a8f")[2]).toBe("7f1c2a9e-0b4d-4c6e-9a1f-3d2e5b6c7a8f");
    expect(transcriptNamespace("")[2]).toBe("~");
    expect(transcriptNamespace("é~")[2]).toBe("~C3~A9~7E");
    const ids = ["a.b", "a~2Eb", "a_b", "a b", "", "~", "~7E"];
    expect(new Set(ids.map((id) => transcriptNamespace(id)[2])).size).toBe(ids.length);
  });
});
