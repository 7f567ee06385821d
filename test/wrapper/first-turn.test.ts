/**
 * The first turn of a thread in a new wrapper (every thread after a restart): the stored head is read and counted
 * before the turn only when it could start over the limit (runtimes/wrapper/unread-head.ts). Under it — the store's
 * size of the head's messages bounds their tokens — the turn runs without a read, and its result is counted only once
 * that size could reach the limit; near or over the limit the head is read first, and a head past `hardLimit` is
 * compacted before the model sees it.
 */
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { afterEach, beforeEach, expect, it } from "vitest";
import { Calibration } from "../../src/engine/calibration.js";
import { isSummaryMessage } from "../../src/messages/summary-message.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { threadStoreFor } from "../../src/store/thread-store.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { generateHistory } from "../../scripts/workload/history.js";
import { seedHead } from "../../scripts/workload/seed-head.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";
import { createStore, type TestStore } from "../support/savers.js";
import { modelWithHardLimit } from "../support/window.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";

let store: TestStore;
let saver: TestStore["saver"];
beforeEach(async () => {
  store = await createStore("sqlite");
  saver = store.saver;
});
afterEach(async () => await store.close());

/** The graph, with its `getState` calls counted (the wrapper reads a thread's state only through it). */
function countedGraph(model: ScriptedChatModel) {
  const graph = createReactAgent({ llm: model, tools: [], checkpointer: saver });
  const reads = { count: 0 };
  const getState = graph.getState.bind(graph);
  graph.getState = (async (...args: Parameters<typeof getState>) => {
    reads.count++;
    return getState(...args);
  }) as typeof graph.getState;
  return { graph, reads };
}

const counter = new TokenCounter({ model: "gpt-4o" });
const ask = (text: string) => ({ messages: [new HumanMessage(text)] });
const config = { configurable: { thread_id: "stored" } };

it("a stored thread far under the limit: no read before the turn and no count after it, until its size could reach the limit", async () => {
  const history = generateHistory({ seed: 5, messages: 200 });
  await seedHead(saver, "stored", history);
  const bytes = (await threadStoreFor(saver).readHeadBytes("stored"))!;
  const long = "The invoice was approved after a second review of the delivery notes. ".repeat(60);
  let turn = 0;
  const usage = (_: BaseMessage[], content: string) => ({
    input_tokens: 5_000 + turn,
    output_tokens: content.length,
    total_tokens: 5_000 + turn + content.length,
  });
  const { graph, reads } = countedGraph(
    new ScriptedChatModel({ reply: () => ({ content: ++turn === 1 ? "Noted." : long }), usage }),
  );
  // The stored size and the input are under the limit now; the long reply of the second turn takes them past it.
  const supervisor = new CompactingSupervisor(graph, { trigger: { tokens: bytes + 1_000 }, env: {} });
  await supervisor.invoke(ask("What is the invoice total?"), config);
  await supervisor.flush();
  expect(reads.count).toBe(0);
  expect(supervisor.compactionHealth("stored").tokens).toBeUndefined();
  // The provider's figures of the turn's call are kept all the same.
  expect(supervisor.compactionHealth("stored").providerUsage).toEqual({ inputTokens: 5_001 });
  const result = await supervisor.invoke(ask("And who approved it?"), config);
  await supervisor.flush();
  expect(reads.count).toBe(0);
  // Counted from the turn's own result, and far under the limit by that count: nothing to compact.
  expect(supervisor.compactionHealth("stored").tokens).toBe(
    new Calibration(counter).measure(result.messages as BaseMessage[]).tokens,
  );
  expect(supervisor.compactionHealth("stored").providerUsage).toEqual({ inputTokens: 5_002 });
  expect(supervisor.compactionHealth("stored").summary).toBe("none");
});

it("a stored thread whose size could reach the limit is read and counted before the turn", async () => {
  const history = generateHistory({ seed: 5, messages: 200 });
  await seedHead(saver, "stored", history);
  const tokens = counter.countMessages(history);
  const { graph, reads } = countedGraph(new ScriptedChatModel({ reply: () => ({ content: "Noted." }) }));
  // Under the limit by its count, but its stored size (bytes) cannot prove it: read first, as before.
  const supervisor = new CompactingSupervisor(graph, { trigger: { tokens: tokens * 2 }, env: {} });
  await supervisor.invoke(ask("What is the invoice total?"), config);
  await supervisor.flush();
  expect(reads.count).toBe(1);
});

it("a stored thread past hardLimit is compacted before the model sees it", async () => {
  const history = generateHistory({ seed: 5, messages: 200 });
  await seedHead(saver, "stored", history);
  const tokens = counter.countMessages(history);
  const model = new ScriptedChatModel({ reply: () => ({ content: "Noted." }) });
  const { graph } = countedGraph(model);
  const supervisor = new CompactingSupervisor(graph, {
    trigger: { tokens: Math.floor(tokens / 3) },
    model: modelWithHardLimit(Math.floor(tokens / 2)),
    summarizer: new ExtractiveSummarizer(),
    env: {},
  });
  await supervisor.invoke(ask("What is the invoice total?"), config);
  await supervisor.flush();
  expect(model.calls[0]!.some((message) => isSummaryMessage(message))).toBe(true);
  expect(counter.countMessages(model.calls[0]!)).toBeLessThan(tokens / 2);
});
