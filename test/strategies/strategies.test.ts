/**
 * The strategies: each keeps tool calls paired, never mutates its input, respects the budget when it can, and
 * leaves pinned messages alone; the pipeline runs cheap edits first and summarizes only if still over.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ExtractiveSummarizer,
  getSummaryProvenance,
  pinMessage,
  TokenCounter,
  type Summarizer,
} from "../../src/index.js";
import { createPipeline, createStrategy, listStrategies, type Strategy } from "../../src/strategies.js";
import { validateHistory } from "../../src/internal.js";
import { editOf } from "../../src/messages/markers.js";
import { generateHistory } from "../../scripts/workload/history.js";
import { history, snapshot } from "../support/arbitrary-history.js";
import { FUZZ_SEED, size } from "../support/reliability.js";

const counter = new TokenCounter();
const STRATEGIES = ["clear-tool-results", "sliding-window", "smart-trim", "summarize"] as const;
const RUNS = size("STRATEGY_RUNS", 150, 1500);

function leadingSystem(messages: readonly BaseMessage[]): BaseMessage[] {
  const end = messages.findIndex((message) => message.getType() !== "system");
  return messages.slice(0, end === -1 ? messages.length : end);
}

describe("every strategy", () => {
  it.each(STRATEGIES)(
    `%s: pairs intact, input untouched, budget respected when it can be (${RUNS} random histories)`,
    async (name) => {
      const strategy = createStrategy(name);
      await fc.assert(
        fc.asyncProperty(history, fc.double({ min: 0.05, max: 1.2, noNaN: true }), async (messages, share) => {
          const before = snapshot(messages);
          const total = counter.countMessages(messages);
          const budget = Math.max(50, Math.floor(total * share));
          const { messages: result, report } = await strategy.apply(messages, { budget, counter });
          expect(snapshot(messages)).toBe(before);
          expect(validateHistory(result)).toEqual([]);
          expect(result.slice(0, leadingSystem(messages).length)).toEqual(leadingSystem(messages));
          expect(report.tokensBefore).toBe(total);
          expect(report.tokensAfter).toBe(counter.countMessages(result));
          if (total <= budget) expect(result).toEqual(messages);
          else expect(report.tokensAfter).toBeLessThanOrEqual(total);
          // The newest message is always still there, verbatim or (a tool result) edited in place.
          expect(result.at(-1)?.id ?? result.at(-1)?.content).toEqual(messages.at(-1)?.id ?? messages.at(-1)?.content);
        }),
        { seed: FUZZ_SEED, numRuns: RUNS },
      );
    },
  );

  it("fit realistic agent histories into the budget (sliding-window, smart-trim, summarize always; clear-tool-results when tool output dominates)", async () => {
    const messages = generateHistory({ seed: 4, messages: 300, bulk: 3 });
    const total = counter.countMessages(messages);
    for (const name of STRATEGIES) {
      for (const share of [0.2, 0.5, 0.8]) {
        const budget = Math.floor(total * share);
        const { report } = await createStrategy(name).apply(messages, { budget, counter });
        if (name !== "clear-tool-results" || share >= 0.5)
          expect(report.tokensAfter, `${name} at ${share}`).toBeLessThanOrEqual(budget);
      }
    }
  });
});

describe("clear-tool-results", () => {
  const conversation = (outputs: number): BaseMessage[] => [
    new SystemMessage("You are helpful."),
    new HumanMessage({ id: "u0", content: "Check every service." }),
    ...Array.from({ length: outputs }, (_, index) => [
      new AIMessage({
        id: `a${index}`,
        content: "",
        tool_calls: [{ id: `c${index}`, name: index % 2 ? "read_logs" : "query_db", args: { n: index } }],
      }),
      new ToolMessage({
        id: `t${index}`,
        tool_call_id: `c${index}`,
        name: index % 2 ? "read_logs" : "query_db",
        content: `line of output ${index}\n`.repeat(200),
      }),
    ]).flat(),
    new AIMessage({ id: "done", content: "All checked." }),
  ];

  it("clears the oldest results first with a placeholder naming the tool and size, keeping the newest K and the pairs", async () => {
    const messages = conversation(8);
    const budget = Math.floor(counter.countMessages(messages) * 0.5);
    const { messages: result, report } = await createStrategy("clear-tool-results", { keep: 3 }).apply(messages, {
      budget,
      counter,
    });
    const tools = result.filter((message): message is ToolMessage => ToolMessage.isInstance(message));
    const cleared = tools.filter((message) => editOf(message));
    expect(report.tokensAfter).toBeLessThanOrEqual(budget);
    expect(cleared.map((message) => message.id)).toEqual(tools.slice(0, cleared.length).map((message) => message.id));
    expect(tools.slice(-3).every((message) => !editOf(message))).toBe(true);
    expect(String(cleared[0]!.content)).toMatch(/output of query_db \(\d+ tokens, 201 lines\)/);
    expect(cleared[0]!.tool_call_id).toBe("c0");
    expect(validateHistory(result)).toEqual([]);
  });

  it("never clears a pinned result (pinMessage's marker)", async () => {
    const messages = conversation(6).map((message) => (message.id === "t2" ? pinMessage(message) : message));
    messages[3] = pinMessage(messages[3]!);
    const { messages: result } = await createStrategy("clear-tool-results", { keep: 0 }).apply(messages, {
      budget: 100,
      counter,
    });
    expect(result[3]).toEqual(messages[3]);
    expect(editOf(result[3]!)).toBeUndefined();
    expect(editOf(result.find((message) => message.id === "t2")!)).toBeUndefined();
    expect(editOf(result.find((message) => message.id === "t1")!)).toBeDefined();
  });
});

describe("sliding-window", () => {
  it("keeps the system prompt, the first user message, pinned messages and the newest within the budget", async () => {
    const messages = generateHistory({ seed: 8, messages: 200 });
    messages[40] = pinMessage(messages[40]!);
    const budget = Math.floor(counter.countMessages(messages) * 0.3);
    const { messages: result } = await createStrategy("sliding-window").apply(messages, { budget, counter });
    expect(result[0]).toBe(messages[0]);
    expect(result).toContain(messages.find((message) => message.getType() === "human"));
    expect(result.some((message) => message.id === messages[40]!.id)).toBe(true);
    expect(result.at(-1)).toBe(messages.at(-1));
    expect(counter.countMessages(result)).toBeLessThanOrEqual(budget);
    expect(validateHistory(result)).toEqual([]);
  });
});

describe("smart-trim", () => {
  it("clears repeated outputs before clipping, and clips the oldest bulky outputs to head and tail excerpts", async () => {
    const big = (id: string, text: string) => [
      new AIMessage({ id: `a-${id}`, content: "", tool_calls: [{ id: `c-${id}`, name: "read_file", args: { id } }] }),
      new ToolMessage({ id: `t-${id}`, tool_call_id: `c-${id}`, name: "read_file", content: text }),
    ];
    const repeated = "const total = items.reduce((sum, item) => sum + item.price, 0);\n".repeat(80);
    const messages: BaseMessage[] = [
      new HumanMessage({ id: "u", content: "Review the billing code." }),
      ...big("1", repeated),
      ...big("2", `START-OF-FILE\n${"function unique_one() { return 1; }\n".repeat(150)}END-OF-FILE`),
      ...big("3", repeated),
      ...big("4", "short"),
      ...big("5", "short too"),
      ...big("6", "and short"),
      new AIMessage({ id: "end", content: "Reviewed." }),
    ];
    const total = counter.countMessages(messages);
    const strategy = createStrategy("smart-trim", { keep: 3, excerpt: [200, 100] });
    const mild = await strategy.apply(messages, { budget: total - 200, counter });
    expect(editOf(mild.messages.find((message) => message.id === "t-1")!)?.action).toBe("cleared");
    expect(editOf(mild.messages.find((message) => message.id === "t-2")!)).toBeUndefined();
    const hard = await strategy.apply(messages, { budget: Math.floor(total / 4), counter });
    const clipped = hard.messages.find((message) => message.id === "t-2")!;
    expect(editOf(clipped)?.action).toBe("clipped");
    expect(String(clipped.content)).toMatch(/^START-OF-FILE[\s\S]*characters, \d+ lines omitted[\s\S]*END-OF-FILE$/);
    expect(hard.report.tokensAfter).toBeLessThanOrEqual(Math.floor(total / 4));
    expect(validateHistory(hard.messages)).toEqual([]);
  });
});

describe("summarize, pins and the pipeline", () => {
  it("summarize never folds a pinned message into the summary: it stays verbatim right after it", async () => {
    const messages = generateHistory({ seed: 9, messages: 120 });
    const pinnedIndex = messages.findIndex((message, index) => index > 5 && message.getType() === "human");
    messages[pinnedIndex] = pinMessage(messages[pinnedIndex]!);
    const { messages: result } = await createStrategy("summarize").apply(messages, {
      budget: Math.floor(counter.countMessages(messages) * 0.3),
      counter,
    });
    const summary = result.find((message) => getSummaryProvenance(message))!;
    expect(getSummaryProvenance(summary)!.coveredIds).not.toContain(messages[pinnedIndex]!.id);
    expect(result[result.indexOf(summary) + 1]).toBe(messages[pinnedIndex]);
    expect(validateHistory(result)).toEqual([]);
  });

  it("runs cheap edits first and summarizes only while still over the budget", async () => {
    const calls: number[] = [];
    const summarizer: Summarizer = {
      name: "counting",
      summarize: async (input) => (
        calls.push(input.messages.length),
        new ExtractiveSummarizer({ counter }).summarize(input)
      ),
    };
    const pipeline = createPipeline([
      createStrategy("clear-tool-results"),
      createStrategy("summarize", { summarizer }),
    ]);
    expect(pipeline.name).toBe("clear-tool-results → summarize");
    const messages = generateHistory({ seed: 5, messages: 200, bulk: 4 });
    const total = counter.countMessages(messages);
    const light = await pipeline.apply(messages, { budget: Math.floor(total * 0.7), counter });
    expect(light.report.steps!.map((step) => step.strategy)).toEqual(["clear-tool-results"]);
    expect(calls).toEqual([]);
    const heavy = await pipeline.apply(messages, { budget: Math.floor(total * 0.05), counter });
    expect(heavy.report.steps!.map((step) => step.strategy)).toEqual(["clear-tool-results", "summarize"]);
    expect(calls).toHaveLength(1);
    expect(heavy.report.tokensAfter).toBeLessThanOrEqual(Math.floor(total * 0.05));
    const under = await pipeline.apply(messages, { budget: total + 1, counter });
    expect(under.report.steps).toEqual([]);
  });
});

describe("the registry", () => {
  it("lists every strategy with a description and rejects unknown names and options with typed errors", () => {
    expect(listStrategies().map((entry) => entry.name)).toEqual([
      "clear-tool-results",
      "sliding-window",
      "smart-trim",
      "summarize",
      "none",
    ]);
    for (const entry of listStrategies()) expect(entry.description.length).toBeGreaterThan(10);
    expect(() => createStrategy("shrink" as never)).toThrow(/unknown strategy "shrink"/);
    expect(() => createStrategy("clear-tool-results", { kepp: 3 } as never)).toThrow(
      expect.objectContaining({
        code: "INVALID_ARGUMENT",
        message: expect.stringContaining('no option "kepp" in clear-tool-results (did you mean "keep"?)'),
      }),
    );
    expect(() => createStrategy("clear-tool-results", { keep: -1 })).toThrow(/keep must be an integer >= 0; got -1/);
    expect(() => createStrategy("summarize", { keepShare: 2 })).toThrow(/keepShare/);
    expect(() => createPipeline([])).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
    const none: Strategy = createStrategy("none");
    expect(none.name).toBe("none");
  });
});
