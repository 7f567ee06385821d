/**
 * The summary log's segment written from the agent's own prompt (summarizers/live-request.ts): with
 * `compactionMiddleware({ summaryLog: "append" })` around a `createAgent` agent whose model is the real ChatOpenAI
 * client against a local Chat Completions server, and `LlmSummarizer` on the same model, the summarizer's request
 * starts with the bytes of the model's last request — its tools, its system message and every message it read — so a
 * token-prefix cache (the server reports one) serves all of it. A model that answers the instruction with a tool call
 * is asked again with the delimited request, without tools, and the segment lands. With `trimTokensToSummarize`
 * below the prompt's size, the delimited request is sent instead, with the newest messages within it.
 */
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { createAgent } from "langchain";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { InGraphCompactionEvent } from "../../src/runtimes/in-graph/compaction-event.js";
import { compactionMiddleware } from "../../src/runtimes/in-graph/compaction-middleware.js";
import { getSummaryProvenance, isSummaryMessage } from "../../src/messages/summary-message.js";
import { LlmSummarizer } from "../../src/summarizers/llm.js";
import {
  startChatCompletionsServer,
  type ChatCompletionsRequest,
  type ChatCompletionsServer,
  type ServerReply,
} from "../support/fakes/chat-completions-server.js";
import { createStore, type TestStore } from "../support/savers.js";

let store: TestStore;
let server: ChatCompletionsServer;
beforeEach(async () => (store = await createStore("sqlite")));
afterEach(async () => {
  await store.close();
  await server?.close();
});

const INSTRUCTION_MARK = "this message is not from the user";
const SEGMENT = "## Facts and figures\n- Invoice INV-7 totals 4,200 EUR, approved by Alice Moreau on 2026-03-14";
const isInstruction = (request: ChatCompletionsRequest) =>
  JSON.stringify(request.messages.at(-1)?.content ?? "").includes(INSTRUCTION_MARK);
const isDelimited = (request: ChatCompletionsRequest) => JSON.stringify(request.messages).includes("<conversation>");

const lookup = tool(async ({ invoice }) => `${invoice}: 4,200 EUR, approved by Alice Moreau on 2026-03-14.`, {
  name: "lookup_invoice",
  description: "Looks an invoice up by its number.",
  schema: z.object({ invoice: z.string() }),
});

/**
 * The agent and its summarizer on one ChatOpenAI against the server: each even turn's first call asks for the tool,
 * every other agent call answers in text; `onInstruction` answers the summarizer's live request.
 */
async function setUp(
  onInstruction: () => ServerReply,
  { trimTokensToSummarize }: { trimTokensToSummarize?: number } = {},
) {
  let calls = 0;
  server = await startChatCompletionsServer(
    (request) => {
      if (isInstruction(request)) return onInstruction();
      if (isDelimited(request)) return { content: SEGMENT };
      const last = request.messages.at(-1)!;
      if (last.role === "user" && calls++ % 2 === 0) {
        const invoice = /INV-\d+/.exec(JSON.stringify(last.content))?.[0] ?? "INV-0";
        return { toolCalls: [{ name: "lookup_invoice", arguments: JSON.stringify({ invoice }) }] };
      }
      return { content: `Checked: the invoice is settled and filed under the March ledger. ${"Filed. ".repeat(12)}` };
    },
    { promptCache: true },
  );
  const model = new ChatOpenAI({
    model: "gpt-4o-mini",
    apiKey: "sk-test-not-a-real-key",
    maxRetries: 0,
    configuration: { baseURL: server.url },
  });
  const events: InGraphCompactionEvent[] = [];
  const middleware = compactionMiddleware({
    trigger: { tokens: 1_600 },
    env: {},
    summaryLog: "append",
    summarizer: new LlmSummarizer({ model, ...(trimTokensToSummarize ? { trimTokensToSummarize } : {}) }),
    onCompaction: (event) => void events.push(event),
  });
  const agent = createAgent({
    model,
    tools: [lookup],
    systemPrompt: "You are the billing assistant of Moreau & Okafor. Look invoices up before you answer.",
    checkpointer: store.saver,
    middleware: [middleware],
  });
  const config = { configurable: { thread_id: "live" } };
  /** Turns until `compactions` landed (each waits for the summary in flight, so the next call applies it). */
  const play = async (compactions: number) => {
    for (let turn = 0; turn < 40 && events.length < compactions; turn++) {
      await agent.invoke({ messages: [new HumanMessage(`Question ${turn}: is invoice INV-${turn} settled?`)] }, config);
      await middleware.idle();
    }
    expect(events.length).toBeGreaterThanOrEqual(compactions);
    return ((await agent.graph.getState(config)).values as { messages: BaseMessage[] }).messages;
  };
  return { play, events };
}

describe('LlmSummarizer\'s live request (summaryLog: "append", compactionMiddleware)', () => {
  it("starts with the model's last request byte for byte, and the server's cache serves that prefix", async () => {
    const { play, events } = await setUp(() => ({ content: SEGMENT }));
    const head = await play(2);
    expect(isSummaryMessage(head[0])).toBe(true);
    expect(getSummaryProvenance(head[0])!.segments!.length).toBeGreaterThanOrEqual(2);
    const summaries = server.requests.filter(({ body }) => isInstruction(body));
    expect(summaries.length).toBeGreaterThanOrEqual(2);
    for (const summary of summaries) {
      const index = server.requests.indexOf(summary);
      // The agent's call just before the summary is the one whose context crossed the limit: its prompt.
      const last = server.requests.slice(0, index).findLast(({ body }) => !isInstruction(body) && !isDelimited(body))!;
      expect(JSON.stringify(summary.body.tools)).toBe(JSON.stringify(last.body.tools));
      expect(last.body.tools).toHaveLength(1);
      const read = last.body.messages.length;
      expect(summary.body.messages).toHaveLength(read + 1);
      expect(JSON.stringify(summary.body.messages.slice(0, read))).toBe(JSON.stringify(last.body.messages));
      expect(summary.body.messages.at(-1)!.role).toBe("user");
    }
    // The cache the server reported for those calls reaches the compaction's report: most of what they read.
    const tokens = events.map((event) => event.summarizerTokens!);
    for (const used of tokens) expect(used.cachedInput).toBeGreaterThan(used.input * 0.8);
  });

  it("a tool call for an answer: asked again with the delimited request, without tools, and the segment lands", async () => {
    const { play, events } = await setUp(() => ({
      toolCalls: [{ name: "lookup_invoice", arguments: JSON.stringify({ invoice: "INV-1" }) }],
    }));
    const head = await play(1);
    expect(isSummaryMessage(head[0])).toBe(true);
    expect(JSON.stringify(head[0]!.content)).toContain("Invoice INV-7 totals 4,200 EUR");
    const index = server.requests.findIndex(({ body }) => isInstruction(body));
    const retry = server.requests[index + 1]!.body;
    expect(isDelimited(retry)).toBe(true);
    expect(retry.tools ?? []).toHaveLength(0);
    expect(events[0]!.summarizerTokens!.calls).toBe(2);
  });

  it("a prompt longer than trimTokensToSummarize: the delimited request, which reads the newest messages within it", async () => {
    const { play, events } = await setUp(() => ({ content: SEGMENT }), { trimTokensToSummarize: 300 });
    const head = await play(1);
    expect(isSummaryMessage(head[0])).toBe(true);
    expect(server.requests.filter(({ body }) => isInstruction(body))).toHaveLength(0);
    const delimited = server.requests.filter(({ body }) => isDelimited(body));
    expect(delimited.length).toBeGreaterThanOrEqual(1);
    // The agent's last prompt held every question so far; the request reads only the newest within 300 tokens.
    const before = server.requests.slice(0, server.requests.indexOf(delimited[0]!));
    const agentCall = before.findLast(({ body }) => !isDelimited(body))!;
    const asked = (body: ChatCompletionsRequest) => JSON.stringify(body.messages).match(/Question \d+/g) ?? [];
    expect(asked(delimited[0]!.body).length).toBeLessThan(asked(agentCall.body).length);
    expect(events[0]!.summarizerTokens!.calls).toBe(1);
  });
});
