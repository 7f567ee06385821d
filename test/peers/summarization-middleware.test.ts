/**
 * langchain's own summarization suite as the naming authority: for each behaviour a case of langchain's
 * `summarizationMiddleware` tests checks (libs/langchain/src/agents/middleware/tests/summarization.test.ts), a case
 * here gives `compactionMiddleware` the same options on `createAgent` and checks the same behaviour — or, where this
 * library differs by design, asserts what it does instead (docs/migrating-from-summarization-middleware.md lists each
 * difference and why). `background: false` gives langchain's timing: a call over the trigger waits for its summary.
 */
import type { BaseChatModelCallOptions } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage, type BaseMessageLike } from "@langchain/core/messages";
import { createAgent } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CompactionError } from "../../src/errors.js";
import { getSummaryProvenance, isSummaryMessage, SUMMARY_HEADER } from "../../src/messages/summary-message.js";
import { validateHistory } from "../../src/messages/validate.js";
import {
  compactionMiddleware,
  type CompactionMiddlewareOptions,
} from "../../src/runtimes/in-graph/compaction-middleware.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { ScriptedChatModel, type ScriptedChatModelFields } from "../support/fakes/scripted-chat-model.js";
import { startChatCompletionsServer, type ChatCompletionsServer } from "../support/fakes/chat-completions-server.js";

const SUMMARY =
  "Previous conversation covered: the billing service architecture, the scaling problem, and the decision to cache invoices.";
const ANSWER = "Here is my recommendation based on everything we discussed.";
const counter = new TokenCounter({ model: "gpt-4o" });

/** A chat model that also records the options of each call (the summarizer's metadata, tags and callbacks). */
class RecordingChatModel extends ScriptedChatModel {
  readonly options: Array<Partial<BaseChatModelCallOptions> | undefined> = [];
  window?: number;

  override get profile() {
    return this.window === undefined ? {} : { maxInputTokens: this.window };
  }

  override async invoke(input: BaseMessageLike[] | string, options?: Partial<BaseChatModelCallOptions>) {
    this.options.push(options);
    return super.invoke(input as BaseMessageLike[], options);
  }
}

const summarizerModel = (fields: Partial<ScriptedChatModelFields> = {}) =>
  new RecordingChatModel({ reply: () => ({ content: SUMMARY }), modelName: "gpt-4o-mini", ...fields });
const mainModel = (content = ANSWER) => new ScriptedChatModel({ reply: () => ({ content }) });

/** One sentence of about `tokens` tokens, numbered so the summarizer's request can be read for it. */
const sentence = (label: string, tokens = 200) =>
  `${label}: ${Array.from({ length: tokens - 4 }, (_, index) => ["invoice", "ledger", "refund", "cache"][index % 4]).join(" ")}`;

/** The conversation langchain's cases use: six long messages and a short question. */
const LONG: BaseMessage[] = [
  new HumanMessage(sentence("Message 1")),
  new AIMessage(sentence("Response 1")),
  new HumanMessage(sentence("Message 2")),
  new AIMessage(sentence("Response 2")),
  new HumanMessage(sentence("Message 3")),
  new AIMessage(sentence("Response 3")),
  new HumanMessage("Final question: what do you recommend?"),
];

async function run(options: Partial<CompactionMiddlewareOptions>, messages: BaseMessage[], model = mainModel()) {
  const middleware = compactionMiddleware({ background: false, env: {}, ...options } as CompactionMiddlewareOptions);
  const agent = createAgent({ model, middleware: [middleware] });
  const result = await agent.invoke({ messages });
  return { result: result.messages as BaseMessage[], agent, middleware };
}

/** The text the summarizer read: every message of its request. */
const requestText = (model: RecordingChatModel, call = 0) =>
  model.calls[call]!.map((message) =>
    typeof message.content === "string" ? message.content : JSON.stringify(message.content),
  ).join("\n");

function expectSummaryFirst(messages: BaseMessage[]) {
  expect(isSummaryMessage(messages[0])).toBe(true);
  expect(messages[0]!.getType()).toBe("human");
  expect(messages[0]!.additional_kwargs).toMatchObject({ lc_source: "summarization" });
  expect(String(messages[0]!.content)).toContain(SUMMARY);
}

describe("summarizationMiddleware's behaviours, on compactionMiddleware", () => {
  it("tags the summarizer's call with lc_source metadata", async () => {
    const summarizer = summarizerModel();
    await run({ model: summarizer, trigger: { tokens: 1_000 }, keep: { messages: 2 } }, LONG);
    expect(summarizer.calls).toHaveLength(1);
    expect(summarizer.options[0]).toMatchObject({ metadata: { lc_source: "summarization" } });
  });

  it("differs by design: the summarizer's call does not join the model call's run (no inherited callbacks), so its tokens never reach the caller's stream", async () => {
    const summarizer = summarizerModel();
    const middleware = compactionMiddleware({
      model: summarizer,
      trigger: { tokens: 1_000 },
      keep: { messages: 2 },
      background: false,
      env: {},
    });
    const agent = createAgent({ model: mainModel(), middleware: [middleware] });
    await agent.invoke({ messages: LONG }, { metadata: { test_parent: "metadata" }, tags: ["test_parent_tag"] });
    expect(summarizer.options[0]).toMatchObject({ metadata: { lc_source: "summarization" }, callbacks: [] });
    expect(summarizer.options[0]!.tags).toContain("nostream");
    expect(summarizer.options[0]!.tags).not.toContain("test_parent_tag");
  });

  it("summarizes when the context passes trigger.tokens: the summary first, then the kept messages and the reply", async () => {
    const summarizer = summarizerModel();
    const { result } = await run({ model: summarizer, trigger: { tokens: 1_000 }, keep: { messages: 2 } }, LONG);
    expect(summarizer.calls).toHaveLength(1);
    expectSummaryFirst(result);
    expect(result.slice(1).map((message) => message.content)).toEqual([LONG[5]!.content, LONG[6]!.content, ANSWER]);
  });

  it("does not summarize under the trigger: every message kept", async () => {
    const summarizer = summarizerModel();
    const short = [new HumanMessage("Hello"), new AIMessage("Hi there!"), new HumanMessage("How are you?")];
    const { result } = await run({ model: summarizer, trigger: { tokens: 5_000 }, keep: { messages: 10 } }, short);
    expect(summarizer.calls).toHaveLength(0);
    expect(result).toHaveLength(4);
  });

  it("summarizes when any condition of a trigger list holds (OR of ANDs; a condition of fewer than 4 messages, which no compaction gets under, is refused by design)", async () => {
    const summarizer = summarizerModel();
    const five = [
      new HumanMessage(sentence("Message 1", 30)),
      new AIMessage(sentence("Response 1", 30)),
      new HumanMessage(sentence("Message 2", 30)),
      new AIMessage(sentence("Response 2", 30)),
      new HumanMessage("Message 3"),
    ];
    const { result } = await run(
      { model: summarizer, trigger: [{ messages: 5 }, { tokens: 3_000, messages: 6 }], keep: { messages: 2 } },
      five,
    );
    expect(summarizer.calls).toHaveLength(1);
    expectSummaryFirst(result);
  });

  it("keeps an AI message and its tool results together", async () => {
    const summarizer = summarizerModel();
    const messages = [
      new HumanMessage(sentence("Old part 1")),
      new AIMessage(sentence("Old response 1")),
      new HumanMessage(sentence("Old part 2")),
      new AIMessage(sentence("Old response 2")),
      new AIMessage({
        content: "Let me check the weather.",
        tool_calls: [{ id: "call_123", name: "get_weather", args: { location: "Paris" } }],
      }),
      new ToolMessage({ content: "Weather in Paris: Rainy, 15°C", tool_call_id: "call_123" }),
      new HumanMessage("Thanks for checking the weather!"),
    ];
    const { result } = await run({ model: summarizer, trigger: { tokens: 700 }, keep: { messages: 2 } }, messages);
    expect(summarizer.calls).toHaveLength(1);
    const call = result.some(
      (message) =>
        message.getType() === "ai" && (message as AIMessage).tool_calls?.some((toolCall) => toolCall.id === "call_123"),
    );
    const answer = result.some(
      (message) => message.getType() === "tool" && (message as ToolMessage).tool_call_id === "call_123",
    );
    expect(call).toBe(answer);
    expect(validateHistory(result)).toEqual([]);
  });

  it("keep.tokens keeps the newest messages within that many tokens", async () => {
    const summarizer = summarizerModel();
    const { result } = await run({ model: summarizer, trigger: { tokens: 1_000 }, keep: { tokens: 260 } }, LONG);
    expectSummaryFirst(result);
    expect(result.slice(1).map((message) => message.content)).toEqual([LONG[5]!.content, LONG[6]!.content, ANSWER]);
  });

  it("fractions of the window read the model's profile (maxInputTokens)", async () => {
    const summarizer = summarizerModel();
    summarizer.window = 8_192;
    const messages = Array.from({ length: 10 }, (_, index) => [
      new HumanMessage(sentence(`Message ${index}`)),
      new AIMessage(sentence(`Response ${index}`)),
    ]).flat();
    const { result, middleware } = await run(
      { model: summarizer, trigger: { fraction: 0.1 }, keep: { fraction: 0.05 } },
      [...messages, new HumanMessage("Next?")],
    );
    expect(middleware.policy.tokenLimit).toBe(819);
    expect(middleware.policy.cut).toEqual({ by: "keep", tokens: 409 });
    expect(summarizer.calls).toHaveLength(1);
    expectSummaryFirst(result);
  });

  it("fractions of the window of a model known by name, without a profile", async () => {
    const summarizer = summarizerModel({ modelName: "claude-sonnet-4-20250514" });
    const messages = Array.from({ length: 100 }, (_, index) => [
      new HumanMessage(sentence(`Message ${index}`, 600)),
      new AIMessage(sentence(`Response ${index}`, 600)),
    ]).flat();
    const { result, middleware } = await run(
      { model: summarizer, trigger: { fraction: 0.25 }, keep: { fraction: 0.005 } },
      [...messages, new HumanMessage("Next?")],
    );
    expect(middleware.policy.tokenLimit).toBe(50_000);
    expect(summarizer.calls).toHaveLength(1);
    expectSummaryFirst(result);
    expect(result.at(-2)!.content).toBe("Next?");
  });

  it("a fraction of the window of a model without a profile or a known name is refused", () => {
    const summarizer = summarizerModel({ modelName: "house-model" });
    let caught: unknown;
    try {
      compactionMiddleware({ model: summarizer, trigger: { fraction: 0.5 }, keep: { messages: 10 }, env: {} });
    } catch (error) {
      caught = error;
    }
    expect(CompactionError.isInstance(caught)).toBe(true);
    expect((caught as CompactionError).code).toBe("INVALID_ARGUMENT");
    expect(String((caught as Error).message)).toMatch(/window/);
  });

  it("trimTokensToSummarize: the summarizer reads only the newest messages of the span within that many tokens", async () => {
    const summarizer = summarizerModel();
    const { result } = await run(
      {
        model: summarizer,
        trigger: { tokens: 1_000 },
        keep: { messages: 2 },
        trimTokensToSummarize: 250,
      },
      LONG,
    );
    expect(summarizer.calls).toHaveLength(1);
    const read = requestText(summarizer);
    expect(read).not.toContain("Message 1:");
    expect(read).not.toContain("Response 1:");
    expect(read).toContain("Message 3:");
    expect(result.slice(1).map((message) => message.content)).toEqual([LONG[5]!.content, LONG[6]!.content, ANSWER]);
  });

  it("without trimTokensToSummarize the summarizer reads the whole span", async () => {
    const summarizer = summarizerModel();
    const { result } = await run({ model: summarizer, trigger: { tokens: 1_000 }, keep: { messages: 2 } }, LONG);
    const read = requestText(summarizer);
    for (const label of ["Message 1:", "Response 1:", "Message 2:", "Response 2:", "Message 3:"])
      expect(read).toContain(label);
    expect(read).not.toContain("Response 3:");
    expect(result).toHaveLength(4);
  });

  it("tokenCounter counts the trigger's tokens", async () => {
    const summarizer = summarizerModel();
    const seen: number[] = [];
    // Words, not tokens: about half the tokenizer's figure on these messages.
    const words = (messages: BaseMessage[]) => (
      seen.push(messages.length),
      messages.reduce((total, message) => total + String(message.content).split(/\s+/).length, 0)
    );
    const { result } = await run(
      { model: summarizer, trigger: { tokens: 1_000 }, keep: { messages: 2 }, tokenCounter: words },
      LONG,
    );
    expect(seen.length).toBeGreaterThan(0);
    expect(summarizer.calls).toHaveLength(1);
    expectSummaryFirst(result);
    // The same thread under the same trigger counted by a counter that says less: nothing summarized.
    const quiet = summarizerModel();
    await run({ model: quiet, trigger: { tokens: 1_000 }, keep: { messages: 2 }, tokenCounter: () => 100 }, LONG);
    expect(quiet.calls).toHaveLength(0);
  });

  it("an empty conversation: the agent answers, nothing is summarized", async () => {
    const summarizer = summarizerModel();
    const { result } = await run({ model: summarizer, trigger: { tokens: 100 }, keep: { messages: 5 } }, []);
    expect(result.length).toBeGreaterThan(0);
    expect(summarizer.calls).toHaveLength(0);
  });

  it("validates trigger and keep as langchain's schema does", () => {
    const summarizer = summarizerModel();
    const make = (options: Partial<CompactionMiddlewareOptions>) => () =>
      compactionMiddleware({ model: summarizer, env: {}, ...options } as CompactionMiddlewareOptions);
    expect(make({ trigger: { tokens: 1_000 }, keep: { messages: 10 } })).not.toThrow();
    expect(make({ trigger: { fraction: 0.8 }, keep: { tokens: 5_000 } })).not.toThrow();
    expect(make({ trigger: { fraction: 1.5 }, keep: { messages: 10 } })).toThrow(/trigger\.fraction must be/);
    expect(make({ trigger: { tokens: -100 }, keep: { messages: 10 } })).toThrow(/trigger\.tokens must be/);
    expect(make({ trigger: { tokens: 1_000 }, keep: { messages: 0 } })).not.toThrow();
    expect(make({ trigger: { tokens: 1_000 }, keep: { messages: 10, tokens: 5_000 } })).toThrow(/keep must be/);
  });

  describe("a model string", () => {
    let server: ChatCompletionsServer;
    const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };
    beforeAll(async () => {
      server = await startChatCompletionsServer(() => ({ content: SUMMARY }));
      // langchain's initChatModel builds ChatOpenAI, which reads these (the library reads no environment itself).
      process.env.OPENAI_API_KEY = "test-key";
      process.env.OPENAI_BASE_URL = server.url;
    });
    afterAll(async () => {
      for (const [name, value] of [
        ["OPENAI_API_KEY", saved.key],
        ["OPENAI_BASE_URL", saved.url],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      await server.close();
    });

    it('"provider:model" builds the summarizer with langchain\'s initChatModel, at the first summary', async () => {
      const { result } = await run(
        { model: "openai:gpt-4o-mini", trigger: { tokens: 1_000 }, keep: { messages: 2 } },
        LONG,
      );
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]!.body.model).toBe("gpt-4o-mini");
      expectSummaryFirst(result);
    });
  });

  it("differs by design: no trigger is refused (a compaction that never runs is a misconfiguration), not a disabled middleware", () => {
    expect(() => compactionMiddleware({ model: summarizerModel(), keep: { messages: 10 }, env: {} })).toThrow(
      /needs a trigger/,
    );
  });

  it("the kept messages never start with an AI message whose tool calls were summarized away", async () => {
    const summarizer = summarizerModel();
    const messages = [
      new HumanMessage(sentence("First message", 100)),
      new AIMessage(sentence("First response", 100)),
      new HumanMessage(sentence("Second message", 100)),
      new AIMessage(sentence("Second response", 100)),
      new HumanMessage(sentence("Third message", 100)),
      new AIMessage(sentence("Third response", 100)),
      new HumanMessage("Let me search for information."),
      new AIMessage({
        content: "I'll search for that.",
        tool_calls: [{ id: "call_1", name: "search", args: { query: "test" } }],
      }),
      new ToolMessage({ content: "Search results", tool_call_id: "call_1" }),
      new HumanMessage("What did you find?"),
    ];
    const { result } = await run({ model: summarizer, trigger: { tokens: 500 }, keep: { messages: 4 } }, messages);
    expectSummaryFirst(result);
    const first = result[1]!;
    expect(
      first.getType() === "ai" &&
        ((first as AIMessage).tool_calls?.length ?? 0) > 0 &&
        !result.some((message) => message.getType() === "tool"),
    ).toBe(false);
    expect(first.getType()).not.toBe("tool");
    expect(validateHistory(result)).toEqual([]);
  });

  it("the summary message starts with the library's header by default", async () => {
    const { result } = await run({ model: summarizerModel(), trigger: { tokens: 1_000 }, keep: { messages: 2 } }, LONG);
    expect(String(result[0]!.content).startsWith(SUMMARY_HEADER)).toBe(true);
  });

  it("summaryPrefix starts the summary message instead", async () => {
    const prefix = "## Previous conversation summary:";
    const { result } = await run(
      { model: summarizerModel(), trigger: { tokens: 1_000 }, keep: { messages: 2 }, summaryPrefix: prefix },
      LONG,
    );
    expect(String(result[0]!.content).startsWith(`${prefix}\n`)).toBe(true);
    expect(String(result[0]!.content)).not.toContain(SUMMARY_HEADER);
    expect(getSummaryProvenance(result[0])?.prefix).toBe(prefix);
  });

  it("the summarizer's tokens never reach a messages stream", async () => {
    const SECRET = "INTERNAL_SUMMARY_OUTPUT_SHOULD_NOT_BE_STREAMED";
    const summarizer = summarizerModel({ reply: () => ({ content: SECRET }) });
    const middleware = compactionMiddleware({
      model: summarizer,
      trigger: { tokens: 1_000 },
      keep: { messages: 2 },
      background: false,
      env: {},
    });
    const agent = createAgent({ model: mainModel(), middleware: [middleware] });
    const streamed: string[] = [];
    for await (const [mode, chunk] of await agent.stream({ messages: LONG }, { streamMode: ["messages"] })) {
      if (mode !== "messages") continue;
      const [message] = chunk as [BaseMessage, unknown];
      if (message.getType() === "ai" && typeof message.content === "string") streamed.push(message.content);
    }
    expect(summarizer.calls).toHaveLength(1);
    expect(streamed.join(" ")).not.toContain(SECRET);
    expect(streamed.join("")).toContain(ANSWER);
  });

  it("a keep.tokens cut that would fall on a tool result keeps the call with it", async () => {
    const summarizer = summarizerModel();
    const messages = [
      new HumanMessage(sentence("Opening", 800)),
      new AIMessage({
        content: sentence("Calling", 500),
        tool_calls: [{ id: "call_preserve", name: "test_tool", args: { test: true } }],
      }),
      new ToolMessage({ content: sentence("Result", 150), tool_call_id: "call_preserve", name: "test_tool" }),
      new HumanMessage(sentence("Follow-up", 450)),
      new HumanMessage(sentence("Question", 400)),
    ];
    // A keep of the newest ~1,000 tokens would start inside the call's result.
    const { result } = await run({ model: summarizer, trigger: { tokens: 2_000 }, keep: { tokens: 1_000 } }, messages);
    expectSummaryFirst(result);
    const kept = result.slice(1);
    const call = kept.some(
      (message) =>
        message.getType() === "ai" &&
        (message as AIMessage).tool_calls?.some((toolCall) => toolCall.id === "call_preserve"),
    );
    const answer = kept.some(
      (message) => message.getType() === "tool" && (message as ToolMessage).tool_call_id === "call_preserve",
    );
    expect(call).toBe(answer);
    expect(validateHistory(result)).toEqual([]);
  });

  it("a tool result without its call (an orphan) does not stop the agent", async () => {
    const messages = [
      new HumanMessage(sentence("Opening", 120)),
      new AIMessage("No tool calls here"),
      new ToolMessage({ content: "Orphan result", tool_call_id: "orphan_call", name: "orphan_tool" }),
      new HumanMessage(sentence("More", 120)),
      new HumanMessage("Final question"),
    ];
    const { result } = await run(
      { model: summarizerModel(), trigger: { tokens: 150 }, keep: { messages: 2 } },
      messages,
    );
    expect(result.at(-1)!.content).toBe(ANSWER);
  });

  it("an AI message's many parallel tool calls stay with all their results", async () => {
    const summarizer = summarizerModel();
    const toolCalls = Array.from({ length: 10 }, (_, index) => ({
      id: `call_${index}`,
      name: "read_file",
      args: { file: `file${index}.txt` },
    }));
    const messages = [
      new HumanMessage(sentence("Read these files", 1_500)),
      new AIMessage({ content: "I'll read all 10 files", tool_calls: toolCalls }),
      ...toolCalls.map(
        (toolCall) =>
          new ToolMessage({
            content: `Contents of ${toolCall.args.file}`,
            tool_call_id: toolCall.id,
            name: toolCall.name,
          }),
      ),
      new HumanMessage("Now summarize them"),
    ];
    const { result } = await run({ model: summarizer, trigger: { tokens: 1_000 }, keep: { messages: 5 } }, messages);
    expectSummaryFirst(result);
    const calls = result
      .filter((message) => message.getType() === "ai")
      .flatMap((message) => (message as AIMessage).tool_calls ?? []);
    const results = result
      .filter((message) => message.getType() === "tool")
      .map((message) => (message as ToolMessage).tool_call_id);
    // The cut fell inside the results: the call and all ten results were kept together.
    expect(calls).toHaveLength(10);
    expect(results.sort()).toEqual(calls.map((toolCall) => toolCall.id).sort());
    expect(validateHistory(result)).toEqual([]);
  });

  it("the summarizer reads messages as plain role-prefixed lines, not their serialized metadata", async () => {
    const summarizer = summarizerModel();
    const heavy = LONG.map((message, index) =>
      index === 1
        ? new AIMessage({
            content: message.content,
            id: "run-1",
            response_metadata: { model_name: "gpt-4o", system_fingerprint: "fp_44709d6fcb", finish_reason: "stop" },
            usage_metadata: { input_tokens: 900, output_tokens: 60, total_tokens: 960 },
          })
        : message,
    );
    await run({ model: summarizer, trigger: { tokens: 1_000 }, keep: { messages: 2 } }, heavy);
    const read = requestText(summarizer);
    expect(read).toMatch(/^assistant: Response 1:/m);
    expect(read).toMatch(/^user: Message 1:/m);
    for (const metadata of ["fp_44709d6fcb", "response_metadata", "usage_metadata", "finish_reason"])
      expect(read).not.toContain(metadata);
    // The span's text, and the prompt: not the messages' serialized form.
    const spanTokens = counter.countMessages(heavy.slice(0, 5));
    expect(counter.countText(read)).toBeLessThan(spanTokens + 1_200);
  });
});
