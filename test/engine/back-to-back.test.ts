/**
 * The bound on lateness, on every runtime, with turns run back to back that never yield a macrotask: a synchronous
 * SQLite saver, a scripted model that answers at once, and no pause between turns. The summarizer advances only on
 * macrotasks (test/support/fakes/macrotask-summarizer.ts), so a summary lands during the run only because the
 * scheduler makes the (lateness + 1)-th call over the limit wait for it. Asserted on what the model received: no
 * more than `lateness` calls in a row start over the limit, and compactions land throughout the run.
 */
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { createAgent } from "langchain";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LATENESS } from "../../src/engine/policy.js";
import { isSummaryMessage } from "../../src/messages/summary-message.js";
import { compactionMiddleware } from "../../src/runtimes/in-graph/compaction-middleware.js";
import { compactionNode } from "../../src/runtimes/in-graph/compaction-node.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { MacrotaskSummarizer } from "../support/fakes/macrotask-summarizer.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";
import { createStore, type TestStore } from "../support/savers.js";

const LIMIT = 1_500;
const TURNS = 40;
const counter = new TokenCounter({ model: "gpt-4o" });

const VOCABULARY =
  "invoice ledger refund audit payroll vendor contract renewal incident outage latency budget forecast migration schema rollout canary Dana Okafor Berlin Lisbon Q3 VAT rounding approval escalation".split(
    " ",
  );

/** About 110 tokens of distinct, deterministic text for turn `turn`. */
function ask(turn: number): { messages: BaseMessage[] } {
  let seed = turn * 7919 + 17;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  const words = Array.from({ length: 70 }, () => VOCABULARY[next() % VOCABULARY.length]);
  return {
    messages: [
      new HumanMessage({ id: `ask-${turn}`, content: `Turn ${turn}, ticket T-${1000 + turn}: ${words.join(" ")}.` }),
    ],
  };
}

const reply = (messages: BaseMessage[]) => ({
  content: `Noted ${messages.length} messages; ticket total ${messages.length * 37} EUR.`,
});

/** The longest run of model calls in a row whose input was over the limit. */
function longestRunOver(model: ScriptedChatModel): number {
  let longest = 0;
  let run = 0;
  for (const call of model.calls) {
    run = counter.countMessages(call) > LIMIT ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

/** Turns run back to back: nothing between them hands the event loop a turn. */
async function backToBack(invoke: (input: { messages: BaseMessage[] }) => Promise<unknown>): Promise<void> {
  for (let turn = 0; turn < TURNS; turn++) await invoke(ask(turn));
}

function expectBounded(model: ScriptedChatModel, compactions: number): void {
  // 40 turns of ~150 tokens against a limit of 1,500: the thread crosses it every few turns after the first ten.
  expect(compactions).toBeGreaterThanOrEqual(4);
  expect(longestRunOver(model)).toBeLessThanOrEqual(LATENESS);
  expect(model.calls.at(-1)!.some((message) => isSummaryMessage(message))).toBe(true);
}

describe("back-to-back turns that never yield: a compaction lands within the bound on lateness", () => {
  let store: TestStore;
  beforeEach(async () => void (store = await createStore("sqlite")));
  afterEach(async () => await store.close());

  for (const [label, summarizer] of [
    ["the wrapper, with a summarizer that advances only on macrotasks", () => new MacrotaskSummarizer()],
    ["the wrapper with its defaults", () => undefined],
  ] as const) {
    it(label, async () => {
      const model = new ScriptedChatModel({ reply });
      let compactions = 0;
      const given = summarizer();
      const supervisor = new CompactingSupervisor(createAgent({ model, tools: [], checkpointer: store.saver }), {
        trigger: { tokens: LIMIT },
        env: {},
        ...(given ? { summarizer: given } : {}),
        onCompaction: (report) => void (report.status === "compacted" && compactions++),
      });
      const config = { configurable: { thread_id: given ? "wrapper" : "wrapper-defaults" } };
      await backToBack((input) => supervisor.invoke(input, config));
      expectBounded(model, compactions);
      await supervisor.close();
    });
  }

  it("the createAgent middleware", async () => {
    const model = new ScriptedChatModel({ reply });
    const summarizer = new MacrotaskSummarizer();
    let compactions = 0;
    const middleware = compactionMiddleware({
      trigger: { tokens: LIMIT },
      env: {},
      summarizer,
      onCompaction: () => void compactions++,
    });
    const agent = createAgent({ model, tools: [], checkpointer: store.saver, middleware: [middleware] });
    const config = { configurable: { thread_id: "middleware" } };
    await backToBack((input) => agent.invoke(input, config));
    expectBounded(model, compactions);
    expect(summarizer.finished).toBeGreaterThanOrEqual(compactions);
  });

  it("the node as createReactAgent's preModelHook", async () => {
    const model = new ScriptedChatModel({ reply });
    const summarizer = new MacrotaskSummarizer();
    let compactions = 0;
    const agent = createReactAgent({
      llm: model,
      tools: [],
      checkpointer: store.saver,
      preModelHook: compactionNode({
        trigger: { tokens: LIMIT },
        env: {},
        summarizer,
        onCompaction: () => void compactions++,
      }),
    });
    const config = { configurable: { thread_id: "node" } };
    await backToBack((input) => agent.invoke(input, config));
    expectBounded(model, compactions);
  });
});
