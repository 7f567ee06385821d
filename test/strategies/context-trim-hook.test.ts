/**
 * The within-turn guard: one turn of 40 tool calls with bulky outputs. With the hook every model call stays under
 * the budget, while the stored history still holds the full turn; without it the calls grow past 60k tokens.
 */
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph-checkpoint";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TokenCounter } from "../../src/index.js";
import { createContextTrimHook, type StrategyReport } from "../../src/strategies.js";
import { validateHistory } from "../../src/internal.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";

const counter = new TokenCounter();
const CALLS = 40;

function output(query: string): string {
  return Array.from(
    { length: 120 },
    (_, line) => `${query} row ${line}: order ord_${100000 + line} total ${(line * 37.5).toFixed(2)} EUR status paid`,
  ).join("\n");
}

const searchTool = tool(async ({ query }: { query: string }) => output(query), {
  name: "search_orders",
  description: "Search the orders.",
  schema: z.object({ query: z.string() }),
});

function agent(preModelHook?: ReturnType<typeof createContextTrimHook>) {
  const model = new ScriptedChatModel({
    reply: (_messages, { call }) =>
      call <= CALLS
        ? { toolCalls: [{ name: "search_orders", args: { query: `batch-${call}` } }] }
        : { content: "All 40 batches reconciled." },
  });
  const graph = createReactAgent({
    llm: model,
    tools: [searchTool],
    checkpointer: new MemorySaver(),
    ...(preModelHook ? { preModelHook } : {}),
  });
  return { graph, model };
}

describe("createContextTrimHook (within-turn guard)", () => {
  it("is exported under its name only: the deprecated createCompactionHook is gone (CHANGELOG)", async () => {
    expect("createCompactionHook" in (await import("../../src/index.js"))).toBe(false);
  });

  it("keeps every model call of a 40-tool-call turn under the budget; the stored history holds the full turn", async () => {
    const budget = 8_000;
    const trims: StrategyReport[] = [];
    const { graph, model } = agent(
      createContextTrimHook({ budget: { tokens: budget }, onTrim: (report) => void trims.push(report) }),
    );
    const config = { configurable: { thread_id: "guarded" }, recursionLimit: 200 };
    const result = await graph.invoke(
      { messages: [new HumanMessage({ id: "u", content: "Reconcile all 40 order batches." })] },
      config,
    );
    expect(result.messages.at(-1)!.content).toBe("All 40 batches reconciled.");
    expect(model.calls).toHaveLength(CALLS + 1);
    const sizes = model.calls.map((messages) => counter.countMessages(messages));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(budget);
    for (const messages of model.calls) expect(validateHistory(messages)).toEqual([]);
    expect(trims.length).toBeGreaterThan(20);
    // The first user message is what the model keeps seeing.
    for (const messages of model.calls) expect(messages[0]!.content).toBe("Reconcile all 40 order batches.");

    const stored = (await graph.getState(config)).values.messages;
    const results = stored.filter((message: unknown) => ToolMessage.isInstance(message));
    expect(stored).toHaveLength(2 + CALLS * 2);
    expect(results).toHaveLength(CALLS);
    results.forEach((message: ToolMessage, index: number) =>
      expect(message.content).toBe(output(`batch-${index + 1}`)),
    );
  });

  it("is needed: without it the same turn sends calls far over the budget", async () => {
    const { graph, model } = agent();
    await graph.invoke(
      { messages: [new HumanMessage("Reconcile all 40 order batches.")] },
      { configurable: { thread_id: "bare" }, recursionLimit: 200 },
    );
    expect(Math.max(...model.calls.map((messages) => counter.countMessages(messages)))).toBeGreaterThan(60_000);
  });

  it("validates its options with typed errors", () => {
    expect(() => createContextTrimHook({ budget: { tokens: -1 } })).toThrow(
      /budget\.tokens must be a positive integer/,
    );
    expect(() => createContextTrimHook({} as never)).toThrow(/budget must be \{ tokens: n \}.*got undefined/);
    expect(() => createContextTrimHook({ budget: 8_000 as never })).toThrow(/\{ tokens: n \} or \{ fraction: f \}/);
    expect(() => createContextTrimHook({ budget: { tokens: 8_000, fraction: 0.5 } as never })).toThrow(/exactly one/);
    expect(() => createContextTrimHook({ budget: { fraction: 0.5 }, model: "totally-new-model" })).toThrow(
      /budget\.fraction .*"totally-new-model"/,
    );
    expect(() => createContextTrimHook({ budget: { tokens: 1_000 }, reserveTokens: 950 })).toThrow(
      /at least 100 tokens/,
    );
    expect(() => createContextTrimHook({ budget: { tokens: 1_000 }, strategy: "shrink" as never })).toThrow(
      /unknown strategy "shrink"/,
    );
  });
});
