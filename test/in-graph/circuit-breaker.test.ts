/**
 * The in-graph runtimes pause a thread's compaction after repeated failures, as the wrapper does: with a summarizer
 * that hangs, the model calls over the limit stop waiting for it once the breaker opens (COMPACTION_PAUSED, told
 * once), and go on with the history as it is.
 */
import { HumanMessage } from "@langchain/core/messages";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { MemorySaver } from "@langchain/langgraph-checkpoint";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { CompactionError } from "../../src/errors.js";
import { compactionMiddleware } from "../../src/runtimes/in-graph/compaction-middleware.js";
import { compactionNode } from "../../src/runtimes/in-graph/compaction-node.js";
import type { SummarizeInput, Summarizer } from "../../src/summarizers/types.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";

/** Never answers (its timeout abandons it), and counts the calls. */
class HangingSummarizer implements Summarizer {
  readonly name = "hanging";
  /** A summary slower than this is abandoned: it never answers, so each attempt fails after 20 ms. */
  readonly timeoutMs = 20;
  calls = 0;
  summarize(_input: SummarizeInput): Promise<string> {
    this.calls++;
    return new Promise<string>(() => undefined);
  }
}

const ask = (turn: number) => ({
  messages: [
    new HumanMessage(
      `Turn ${turn}: record invoice INV-${1000 + turn} for customer C-${turn * 7}, 4,200 EUR due 2026-03-14, approved by Dana Okafor.`,
    ),
  ],
});
const reply = () => ({ content: "Recorded the invoice, the amount, the due date and the approver." });

const forms = {
  middleware: (summarizer: Summarizer, errors: unknown[]) =>
    createAgent({
      model: new ScriptedChatModel({ reply }),
      tools: [],
      checkpointer: new MemorySaver(),
      // Every call over the limit waits (lateness 0): the summarizer's failures come one per call.
      middleware: [
        compactionMiddleware({
          trigger: { tokens: 800 },
          lateness: 0,
          env: {},
          summarizer,
          onCompactionError: (error) => void errors.push(error),
        }),
      ],
    }),
  node: (summarizer: Summarizer, errors: unknown[]) =>
    createReactAgent({
      llm: new ScriptedChatModel({ reply }),
      tools: [],
      checkpointer: new MemorySaver(),
      preModelHook: compactionNode({
        trigger: { tokens: 800 },
        lateness: 0,
        env: {},
        summarizer,
        onCompactionError: (error) => void errors.push(error),
      }),
    }),
};

describe("the in-graph circuit breaker", () => {
  for (const [name, build] of Object.entries(forms)) {
    it(`${name}: three failures pause the thread's compaction; later calls neither wait nor call the summarizer`, async () => {
      const summarizer = new HangingSummarizer();
      const errors: unknown[] = [];
      const graph = build(summarizer, errors);
      for (let turn = 0; turn < 36; turn++) await graph.invoke(ask(turn), { configurable: { thread_id: "hangs" } });
      expect(summarizer.calls).toBe(3);
      const codes = errors.map((error) => (CompactionError.isInstance(error) ? error.code : "other"));
      expect(codes.filter((code) => code === "SUMMARIZER_FAILED")).toHaveLength(3);
      expect(codes.filter((code) => code === "COMPACTION_PAUSED")).toHaveLength(1);
    });
  }
});
