/**
 * Configurations that cannot work are refused where they are given, and a failure that repeats is never silent:
 * - a `model` whose provider langchain does not know, or whose package is not installed, or ":" (every runtime);
 * - contradictory options (`compactionRatio` beside `keep`), refused naming both;
 * - a trigger of messages that no compaction can get under, or a `keep` that leaves the thread at its trigger;
 * - without a `keep`, a trigger of messages keeps a share that fits: it does not compact on every turn;
 * - compactions that fail without an `onCompactionError` are a process warning, once;
 * - a `tokenCounter` that answers NaN or a count far from any thread's is named as the cause, and the turns run.
 */
import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph-checkpoint";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { describe, expect, it } from "vitest";
import { CompactionError } from "../../src/errors.js";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { compactionMiddleware } from "../../src/runtimes/in-graph/compaction-middleware.js";
import { compactionNode } from "../../src/runtimes/in-graph/compaction-node.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { CompactionWorker } from "../../src/runtimes/worker/compaction-worker.js";
import type { Summarizer } from "../../src/summarizers/types.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";
import { listenForWarnings } from "../support/warnings.js";

const reply = () => ({
  content:
    "Noted: the refund of order ord_4471 stays approved by Alice Moreau on 2026-03-14, 4,200 EUR, pending the audit.",
});
const agent = () =>
  createReactAgent({ llm: new ScriptedChatModel({ reply }), tools: [], checkpointer: new MemorySaver() });

const RUNTIMES: Record<string, (options: Record<string, unknown>) => unknown> = {
  wrapper: (options) => new CompactingSupervisor(agent(), { trigger: { tokens: 2_000 }, env: {}, ...options }),
  middleware: (options) => compactionMiddleware({ trigger: { tokens: 2_000 }, env: {}, ...options }),
  node: (options) => compactionNode({ trigger: { tokens: 2_000 }, env: {}, ...options }),
  worker: (options) => new CompactionWorker(new MemorySaver(), { trigger: { tokens: 2_000 }, env: {}, ...options }),
  HistoryManager: (options) => new HistoryManager({ checkpointer: new MemorySaver(), env: {}, ...options }),
};

function refusal(build: () => unknown): CompactionError {
  try {
    build();
  } catch (error) {
    if (CompactionError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("accepted");
}

describe("a model that cannot work is refused at construction, by every runtime", () => {
  it.each([["nosuch:model"], [":"], ["nosuch:"]])("%j: a provider langchain does not know", (model) => {
    for (const [runtime, build] of Object.entries(RUNTIMES)) {
      const error = refusal(() => build({ model }));
      expect({ runtime, code: error.code, parameter: error.parameter }).toEqual({
        runtime,
        code: "INVALID_ARGUMENT",
        parameter: "model",
      });
      expect(error.message).toContain("openai");
    }
  });

  it("a provider whose package is not installed: MISSING_DEPENDENCY naming it", () => {
    for (const build of Object.values(RUNTIMES)) {
      const error = refusal(() => build({ model: "anthropic:claude-sonnet-4" }));
      expect(error.code).toBe("MISSING_DEPENDENCY");
      expect(error.message).toContain("npm install @langchain/anthropic");
    }
  });

  it("a provider that is installed, a bare model name and a chat model are taken", () => {
    for (const build of Object.values(RUNTIMES)) {
      expect(() => build({ model: "openai:gpt-4o-mini" })).not.toThrow();
      expect(() => build({ model: "gpt-4o" })).not.toThrow();
      expect(() => build({ model: "ft:gpt-4o-mini:org::abc" })).not.toThrow();
    }
  });
});

describe("contradictions are refused, naming both", () => {
  it("compactionRatio beside keep", () => {
    for (const [runtime, build] of Object.entries(RUNTIMES)) {
      const error = refusal(() => build({ trigger: { tokens: 2_000 }, compactionRatio: 0.5, keep: { tokens: 500 } }));
      expect({ runtime, parameter: error.parameter }).toEqual({ runtime, parameter: "compactionRatio" });
      expect(error.message).toMatch(/keep is given/);
    }
  });
});

describe("a trigger of messages", () => {
  it("that no compaction can get under, or a keep that leaves the thread at it, is refused saying why", () => {
    const tooFew = refusal(() => RUNTIMES.wrapper!({ trigger: { messages: 3 } }));
    expect(tooFew.parameter).toBe("trigger");
    expect(tooFew.message).toMatch(/no compaction can get under/);
    const keepsAll = refusal(() => RUNTIMES.wrapper!({ trigger: { messages: 10 }, keep: { messages: 9 } }));
    expect(keepsAll.parameter).toBe("keep.messages");
    expect(keepsAll.message).toMatch(/at most 8/);
  });

  it("without a keep, keeps a share that fits: it compacts every few turns, not every turn", async () => {
    let summaries = 0;
    const summarizer: Summarizer = {
      name: "counting",
      async summarize({ messages }) {
        summaries++;
        return `Summary of ${messages.length} messages: order ord_4471, 4,200 EUR, approved by Alice Moreau.`;
      },
    };
    let compactions = 0;
    const supervisor = new CompactingSupervisor(agent(), {
      trigger: { messages: 10 },
      summarizer,
      background: false,
      env: {},
      onCompaction: (report) => void (report.status === "compacted" && compactions++),
    });
    const config = { configurable: { thread_id: "few-messages" } };
    for (let turn = 0; turn < 30; turn++)
      await supervisor.invoke({ messages: [new HumanMessage(`Question ${turn} about order ord_4471?`)] }, config);
    // Each compaction keeps half the trigger's messages (5): a turn adds two, so one compaction every other turn at
    // most — not one at every turn, as keeping langchain's 20 (all of them) did.
    expect(compactions).toBeGreaterThan(5);
    expect(compactions).toBeLessThanOrEqual(15);
    expect(summaries).toBe(compactions);
  });
});

describe("compactions that fail without onCompactionError are said, once", () => {
  it("a process warning at the first failure, none after", async () => {
    const warnings = listenForWarnings();
    const failing: Summarizer = {
      name: "down",
      summarize: async () => {
        throw new Error("provider down");
      },
    };
    const supervisor = new CompactingSupervisor(agent(), {
      trigger: { tokens: 300 },
      summarizer: failing,
      background: false,
      env: {},
    });
    const config = { configurable: { thread_id: "failing-silently" } };
    for (let turn = 0; turn < 12; turn++)
      await supervisor.invoke({ messages: [new HumanMessage(`Question ${turn} about order ord_4471?`)] }, config);
    const heard = await warnings.heard();
    warnings.stop();
    expect(heard.filter((warning) => warning.code === "COMPACTION_FAILING")).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/provider down.*onCompactionError/) }),
    ]);
    expect(supervisor.compactionHealth("failing-silently").consecutiveFailures).toBeGreaterThan(0);
  });
});

describe("a tokenCounter that answers nonsense is named for it", () => {
  const turns = async (count: () => number) => {
    const errors: string[] = [];
    const wrapped = new CompactingSupervisor(agent(), {
      trigger: { tokens: 2_000 },
      background: false,
      env: {},
      tokenCounter: count,
      onCompactionError: (error) => void errors.push((error as Error).message),
    });
    const results = [];
    for (let turn = 0; turn < 4; turn++)
      results.push(
        await wrapped.invoke(
          { messages: [new HumanMessage(`Question ${turn}: is the refund of ord_4471 approved?`)] },
          { configurable: { thread_id: "counted" } },
        ),
      );
    return { errors, results };
  };

  it("NaN: said as NaN, through onCompactionError; the turns run", async () => {
    const { errors, results } = await turns(() => Number.NaN);
    expect(results).toHaveLength(4);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toBe("tokenCounter must return a number of tokens >= 0; got NaN.");
  });

  it("a count far above the tokenizer's: the failure names tokenCounter, and so does the pause", async () => {
    const { errors } = await turns(() => 1e12);
    expect(errors[0]).toMatch(/tokenCounter/);
    expect(errors.join("\n")).not.toMatch(/summaryTokens/);
    const paused = errors.find((message) => /is paused until/.test(message));
    expect(paused).toMatch(/Fix tokenCounter, or call resumeCompaction/);
  });
});
