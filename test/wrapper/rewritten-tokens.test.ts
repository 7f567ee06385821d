/**
 * What a compaction costs with the provider's prompt cache, told to the user: each report's `rewrittenTokens` is the
 * new head from its first changed message on (here the summary, first in the thread: all of it), and
 * `compactionHealth(threadId).rewrittenTokens` their sum over the wrapper's compactions of the thread.
 */
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { CompactedReport } from "../../src/engine/report.js";
import { isSummaryMessage } from "../../src/messages/summary-message.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";
import { createStore, type TestStore } from "../support/savers.js";

let store: TestStore;
beforeEach(async () => (store = await createStore("sqlite")));
afterEach(async () => await store.close());

it("each compaction's report says the cache it broke, and the thread's health sums them", async () => {
  const graph = createReactAgent({
    llm: new ScriptedChatModel({
      reply: () => ({ content: "Noted: the invoice total stays 4,200 EUR, approved by Alice Moreau on 2026-03-14." }),
    }),
    tools: [],
    checkpointer: store.saver,
  });
  const reports: CompactedReport[] = [];
  const heads: BaseMessage[][] = [];
  const config = { configurable: { thread_id: "cache" } };
  const supervisor = new CompactingSupervisor(graph, {
    trigger: { tokens: 600 },
    background: false,
    onCompaction: async (report) => {
      if (report.status !== "compacted") return;
      reports.push(report);
      heads.push((await graph.getState(config)).values.messages as BaseMessage[]);
    },
  });
  for (let turn = 0; turn < 30; turn++)
    await supervisor.invoke(
      { messages: [new HumanMessage(`Question ${turn}: who approved invoice INV-${turn}?`)] },
      config,
    );
  expect(reports.length).toBeGreaterThan(1);
  const counter = new TokenCounter({ model: "gpt-4o" });
  reports.forEach((report, index) => {
    // No system message: the summary leads the new head, so every token of it left the cache.
    expect(isSummaryMessage(heads[index]![0])).toBe(true);
    expect(report.rewrittenTokens).toBe(counter.countMessagesFrom(heads[index]!, 0).after);
  });
  expect(supervisor.compactionHealth("cache").rewrittenTokens).toBe(
    reports.reduce((sum, report) => sum + report.rewrittenTokens, 0),
  );
});
