/**
 * Counting what the provider counts, on every runtime: a scripted provider reports usage figures from another
 * tokenizer than the library's (cl100k_base × 1.22, where the library counts with o200k_base). With `lateness: 0`
 * no model call may start over the limit; asserted on the provider's own count of every call's input, which the
 * tokenizer alone undercounts by more than the 3% allowed (so the same run without calibration fails). The wrapper's
 * reports say the count they compacted at, within 3% of the provider's count of that head.
 */
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { createAgent } from "langchain";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { compactionMiddleware } from "../../src/runtimes/in-graph/compaction-middleware.js";
import { compactionNode } from "../../src/runtimes/in-graph/compaction-node.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import type { CompactionReport } from "../../src/engine/report.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";
import { createStore, type TestStore } from "../support/savers.js";
import { listenForWarnings } from "../support/warnings.js";

const LIMIT = 1_500;
const TURNS = 30;
const SCALE = 1.22;
const provider = new TokenCounter({ model: "gpt-4" });
const providerCount = (messages: readonly BaseMessage[]) => Math.round(provider.countMessages(messages) * SCALE);

const VOCABULARY =
  "invoice ledger refund audit payroll vendor contract renewal incident outage latency budget forecast migration schema rollout canary Dana Okafor Berlin Lisbon Q3 VAT rounding approval escalation".split(
    " ",
  );

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

/** The scripted provider: answers, and reports its own count of what it received. */
function providerModel(): ScriptedChatModel {
  return new ScriptedChatModel({
    modelName: "claude-sonnet",
    reply: (messages) => ({ content: `Noted ${messages.length} messages; ticket total ${messages.length * 37} EUR.` }),
    usage: (messages) => ({
      input_tokens: providerCount(messages),
      output_tokens: 20,
      total_tokens: providerCount(messages) + 20,
      // The provider's prompt cache: all but the newest message read from it, the newest written.
      input_token_details: {
        cache_read: providerCount(messages.slice(0, -1)),
        cache_creation: providerCount(messages.slice(-1)),
      },
    }),
  });
}

function expectUnderTheProvidersLimit(model: ScriptedChatModel, compactions: number): void {
  expect(compactions).toBeGreaterThanOrEqual(3);
  const counts = model.calls.map(providerCount);
  // Every call's input, as the provider counts it: under the limit, within the 3% the calibration may be off.
  expect(Math.max(...counts)).toBeLessThanOrEqual(LIMIT * 1.03);
  // And the thread did get near it: compaction did not fire far too early either.
  expect(Math.max(...counts)).toBeGreaterThan(LIMIT * 0.9);
}

describe("the trigger counts what the provider counts", () => {
  let store: TestStore;
  beforeEach(async () => void (store = await createStore("sqlite")));
  afterEach(async () => await store.close());

  it("the wrapper", async () => {
    const model = providerModel();
    const reports: CompactionReport[] = [];
    const supervisor = new CompactingSupervisor(createAgent({ model, tools: [], checkpointer: store.saver }), {
      trigger: { tokens: LIMIT },
      lateness: 0,
      env: {},
      onCompaction: (report) => void (report.status === "compacted" && reports.push(report)),
    });
    const config = { configurable: { thread_id: "wrapper" } };
    for (let turn = 0; turn < TURNS; turn++) await supervisor.invoke(ask(turn), config);
    await supervisor.flush();
    expectUnderTheProvidersLimit(model, reports.length);
    for (const report of reports.slice(1)) {
      if (report.status !== "compacted") continue;
      const replaced = await store.saver.getTuple({
        configurable: { thread_id: "wrapper", checkpoint_ns: "", checkpoint_id: report.previousCheckpointId },
      });
      const truth = providerCount(replaced!.checkpoint.channel_values.messages as BaseMessage[]);
      expect(Math.abs(report.tokensBefore - truth) / truth).toBeLessThanOrEqual(0.03);
    }
    // The provider's figures of the head's latest call, prompt cache included, in the reports and the thread's health.
    const call = model.calls.at(-1)!;
    expect(supervisor.compactionHealth("wrapper").providerUsage).toEqual({
      inputTokens: providerCount(call),
      cacheRead: providerCount(call.slice(0, -1)),
      cacheCreation: providerCount(call.slice(-1)),
    });
    expect(reports.filter((report) => report.providerUsage?.cacheRead !== undefined).length).toBeGreaterThan(0);
  });

  it("the createAgent middleware", async () => {
    const model = providerModel();
    let compactions = 0;
    const middleware = compactionMiddleware({
      trigger: { tokens: LIMIT },
      lateness: 0,
      env: {},
      onCompaction: () => void compactions++,
    });
    const agent = createAgent({ model, tools: [], checkpointer: store.saver, middleware: [middleware] });
    const config = { configurable: { thread_id: "middleware" } };
    for (let turn = 0; turn < TURNS; turn++) await agent.invoke(ask(turn), config);
    expectUnderTheProvidersLimit(model, compactions);
  });

  it("the node as createReactAgent's preModelHook", async () => {
    const model = providerModel();
    let compactions = 0;
    const agent = createReactAgent({
      llm: model,
      tools: [],
      checkpointer: store.saver,
      preModelHook: compactionNode({
        trigger: { tokens: LIMIT },
        lateness: 0,
        env: {},
        onCompaction: () => void compactions++,
      }),
    });
    const config = { configurable: { thread_id: "node" } };
    for (let turn = 0; turn < TURNS; turn++) await agent.invoke(ask(turn), config);
    expectUnderTheProvidersLimit(model, compactions);
  });

  it("an absurd figure is never trusted: one notice, and the same compactions as with no figures at all", async () => {
    const run = async (thread: string, usage: boolean) => {
      const model = new ScriptedChatModel({
        modelName: "claude-sonnet",
        reply: (messages) => ({
          content: `Noted ${messages.length} messages; ticket total ${messages.length * 37} EUR.`,
        }),
        ...(usage
          ? {
              usage: (messages: BaseMessage[]) => ({
                input_tokens: providerCount(messages) * 10,
                output_tokens: 20,
                total_tokens: 0,
              }),
            }
          : {}),
      });
      const warnings = listenForWarnings();
      const reports: CompactionReport[] = [];
      const supervisor = new CompactingSupervisor(createAgent({ model, tools: [], checkpointer: store.saver }), {
        trigger: { tokens: LIMIT },
        lateness: 0,
        env: {},
        onCompaction: (report) => void (report.status === "compacted" && reports.push(report)),
      });
      for (let turn = 0; turn < TURNS; turn++)
        await supervisor.invoke(ask(turn), { configurable: { thread_id: thread } });
      await supervisor.flush();
      const notices = await warnings.heard();
      warnings.stop();
      return { notices, tokens: reports.map((report) => report.tokensBefore) };
    };
    const plain = await run("plain", false);
    const absurd = await run("absurd", true);
    expect(absurd.tokens).toEqual(plain.tokens);
    expect(absurd.notices.filter((notice) => notice.code === "USAGE_IGNORED")).toEqual([
      expect.objectContaining({ code: "USAGE_IGNORED", message: expect.stringContaining("claude-sonnet") }),
    ]);
    expect(plain.notices.filter((notice) => notice.code === "USAGE_IGNORED")).toEqual([]);
  });

  it("the in-graph runtimes tell an absurd figure once, as a process warning", async () => {
    const warnings = listenForWarnings();
    const model = new ScriptedChatModel({
      modelName: "claude-sonnet",
      reply: () => ({ content: "Noted." }),
      usage: () => ({ input_tokens: -1, output_tokens: 1, total_tokens: 0 }),
    });
    const middleware = compactionMiddleware({
      trigger: { tokens: LIMIT },
      env: {},
    });
    const agent = createAgent({ model, tools: [], checkpointer: store.saver, middleware: [middleware] });
    for (let turn = 0; turn < 5; turn++)
      await agent.invoke(ask(turn), { configurable: { thread_id: "absurd-in-graph" } });
    const heard = await warnings.heard();
    warnings.stop();
    expect(heard.filter((warning) => warning.code === "USAGE_IGNORED")).toEqual([
      expect.objectContaining({ message: expect.stringContaining("claude-sonnet") }),
    ]);
  });
});
