/**
 * What a summary cost in its summarizer's own calls, told to the user: with LlmSummarizer (the real ChatOpenAI client
 * against a local Chat Completions server that reports each call's usage), each compaction's report carries the
 * tokens its summary's calls read and wrote — a failed attempt's too, before the fallback wrote the summary — and
 * `compactionHealth(threadId).summarizerTokens` sums every summary of the thread. The middleware's `onCompaction`
 * event carries the same, with the prompt cache its compaction broke (all it wrote: the summary opens the context). An offline summarizer reports nothing.
 */
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { ChatOpenAI } from "@langchain/openai";
import { createAgent } from "langchain";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CompactedReport } from "../../src/engine/report.js";
import type { SummarizerTokens } from "../../src/engine/summarizer-tokens.js";
import { compactionMiddleware } from "../../src/runtimes/in-graph/compaction-middleware.js";
import type { InGraphCompactionEvent } from "../../src/runtimes/in-graph/compaction-event.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import type { CompactingSupervisorOptions } from "../../src/runtimes/wrapper/options.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import { LlmSummarizer } from "../../src/summarizers/llm.js";
import type { Summarizer } from "../../src/summarizers/types.js";
import { isSummaryMessage } from "../../src/messages/summary-message.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import {
  startChatCompletionsServer,
  type ChatCompletionsServer,
  type ServerPolicy,
} from "../support/fakes/chat-completions-server.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";
import { createStore, type TestStore } from "../support/savers.js";
import { createStrategy } from "../../src/strategies/registry.js";

let store: TestStore;
let server: ChatCompletionsServer | undefined;
beforeEach(async () => (store = await createStore("sqlite")));
afterEach(async () => {
  await store.close();
  await server?.close();
  server = undefined;
});

/** The usage the server reports for its `index`-th request: different for every call, so a sum tells which were counted. */
const usageOf = (index: number) => ({
  promptTokens: 900 + 7 * index,
  completionTokens: 40 + index,
  cachedTokens: 256 + index,
});
const SUMMARY = "## Facts and figures\n- Invoices INV-0 onwards were approved by Alice Moreau";

async function summaryModel(policy: ServerPolicy): Promise<ChatOpenAI> {
  server = await startChatCompletionsServer(policy);
  return new ChatOpenAI({
    model: "gpt-4o-mini",
    apiKey: "sk-test-not-a-real-key",
    maxRetries: 0,
    configuration: { baseURL: server.url },
  });
}

/** What the server reported for its requests from `from` up to `to`, as a report sums it. */
function reported(from: number, to: number): SummarizerTokens {
  const calls = Array.from({ length: to - from }, (_, offset) => usageOf(from + offset));
  return {
    input: calls.reduce((sum, usage) => sum + usage.promptTokens, 0),
    output: calls.reduce((sum, usage) => sum + usage.completionTokens, 0),
    cachedInput: calls.reduce((sum, usage) => sum + usage.cachedTokens, 0),
    calls: calls.length,
  };
}

const agentModel = () =>
  new ScriptedChatModel({
    reply: () => ({ content: "Noted: the invoice total stays 4,200 EUR, approved by Alice Moreau on 2026-03-14." }),
  });
const question = (turn: number) => ({
  messages: [new HumanMessage(`Question ${turn}: who approved invoice INV-${turn}?`)],
});

/**
 * The wrapper around a scripted agent (limit 600, compaction inside the turn) with `options`, the reports that landed
 * (with how many requests the server had received by then), and `play`: turns until `turns`, or the first landing.
 */
function wrapped(threadId: string, options: Omit<CompactingSupervisorOptions, "tokenLimit" | "onCompaction">) {
  const graph = createReactAgent({ llm: agentModel(), tools: [], checkpointer: store.saver });
  const landed: Array<{ report: CompactedReport; requests: number }> = [];
  const supervisor = new CompactingSupervisor(graph, {
    trigger: { tokens: 600 },
    background: false,
    ...options,
    onCompaction: (report) =>
      void (report.status === "compacted" && landed.push({ report, requests: server?.requests.length ?? 0 })),
  });
  const play = async (turns: number, { untilLanded = false } = {}) => {
    for (let turn = 0; turn < turns && !(untilLanded && landed.length > 0); turn++)
      await supervisor.invoke(question(turn), { configurable: { thread_id: threadId } });
  };
  return { supervisor, landed, play };
}

/** Each landed report carries exactly the usage of the server's requests since the one before it. */
function expectEachReportBilled(landed: ReadonlyArray<{ report: CompactedReport; requests: number }>): void {
  expect(landed.length).toBeGreaterThan(1);
  landed.forEach(({ report, requests }, index) =>
    expect(report.summarizerTokens).toEqual(reported(landed[index - 1]?.requests ?? 0, requests)),
  );
}

describe("the summarizer's own tokens", () => {
  it("each report carries its summary's calls, and the thread's health sums them", async () => {
    const model = await summaryModel((_, index) => ({ content: SUMMARY, usage: usageOf(index) }));
    const { supervisor, landed, play } = wrapped("billed", { summarizer: new LlmSummarizer({ model }) });
    await play(30);
    expectEachReportBilled(landed);
    expect(supervisor.compactionHealth("billed").summarizerTokens).toEqual(reported(0, server!.requests.length));
  });

  it("a strategy's summary is counted as the default policy's is", async () => {
    const model = await summaryModel((_, index) => ({ content: SUMMARY, usage: usageOf(index) }));
    const { landed, play } = wrapped("strategy", {
      strategy: createStrategy("summarize"),
      summarizer: new LlmSummarizer({ model }),
    });
    await play(30);
    expectEachReportBilled(landed);
  });

  it("a failed attempt is billed too: the report of the fallback's summary counts it", async () => {
    // The model answers with a tool call instead of text: an attempt the provider billed, and a failure.
    const model = await summaryModel((_, index) => ({
      toolCalls: [{ name: "lookup", arguments: "{}" }],
      usage: usageOf(index),
    }));
    const { landed, play } = wrapped("fallback", {
      summarizer: new LlmSummarizer({ model }),
      fallbackSummarizer: new ExtractiveSummarizer(),
    });
    await play(30, { untilLanded: true });
    expect(landed[0]?.report.fallbackReason).toMatch(/tool call/);
    expect(landed[0]!.report.summarizerTokens).toEqual(reported(0, 1));
  });

  it("a custom summarizer reports through onUsage; figures that are not counts are left out", async () => {
    const inner = new ExtractiveSummarizer();
    const summarizer: Summarizer = {
      name: "custom",
      async summarize(input) {
        input.onUsage?.({ inputTokens: Number.NaN, outputTokens: 5 });
        input.onUsage?.({ inputTokens: -1, outputTokens: 5 });
        input.onUsage?.({ inputTokens: 300, outputTokens: 20, cachedInputTokens: 100 });
        return inner.summarize(input);
      },
    };
    const { landed, play } = wrapped("custom", { summarizer });
    await play(30, { untilLanded: true });
    expect(landed[0]?.report.summarizerTokens).toEqual({ input: 300, output: 20, cachedInput: 100, calls: 1 });
  });

  it("an offline summarizer reports none: no figure in the report, zeros in the health", async () => {
    const { supervisor, landed, play } = wrapped("offline", { summarizer: new ExtractiveSummarizer() });
    await play(20);
    expect(landed.length).toBeGreaterThan(0);
    expect(landed.every(({ report }) => report.summarizerTokens === undefined)).toBe(true);
    expect(supervisor.compactionHealth("offline").summarizerTokens).toEqual({
      input: 0,
      output: 0,
      cachedInput: 0,
      calls: 0,
    });
  });

  it("the middleware's onCompaction event carries the summary's tokens and the prompt cache it broke", async () => {
    const model = await summaryModel((_, index) => ({ content: SUMMARY, usage: usageOf(index) }));
    const events: Array<{ event: InGraphCompactionEvent; requests: number }> = [];
    const agent = createAgent({
      model: agentModel(),
      tools: [],
      checkpointer: store.saver,
      middleware: [
        compactionMiddleware({
          trigger: { tokens: 600 },
          background: false,
          env: {},
          summarizer: new LlmSummarizer({ model }),
          onCompaction: (event) => void events.push({ event, requests: server!.requests.length }),
        }),
      ],
    });
    const config = { configurable: { thread_id: "in-graph" } };
    const counter = new TokenCounter({ model: "gpt-4o" });
    for (let turn = 0; turn < 30; turn++) {
      const before = events.length;
      await agent.invoke(question(turn), config);
      if (events.length === before) continue;
      // The compaction ran before the turn's model call: the state opens with what it wrote, the summary first.
      const { event, requests } = events.at(-1)!;
      const written = ((await agent.graph.getState(config)).values as { messages: BaseMessage[] }).messages.slice(
        0,
        event.messagesAfter,
      );
      expect(isSummaryMessage(written[0])).toBe(true);
      expect(event.rewrittenTokens).toBe(counter.countMessagesFrom(written, 0).after);
      expect(event.summarizerTokens).toEqual(reported(events.at(-2)?.requests ?? 0, requests));
    }
    expect(events.length).toBeGreaterThan(1);
  });
});
