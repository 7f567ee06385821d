/**
 * `trigger` and `keep`, the cut in the field's vocabulary (engine/trigger-keep.ts): each spelling resolves to the
 * policy its own settings make, `keep: { messages }` keeps the newest messages verbatim through a real compaction,
 * and a spelling beside the setting it spells, or one this library cannot honour, is refused naming it. A `keep` that
 * would not end under the ceiling (or keeps the whole thread) keeps as much as fits, once said, and counted.
 */
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { createAgent } from "langchain";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CompactionError } from "../../src/errors.js";
import { isOverLimit } from "../../src/engine/limits.js";
import { COMPACTION_OPTIONS, type CompactionOptions } from "../../src/engine/options.js";
import { resolvePolicy } from "../../src/engine/policy.js";
import { resolveSettings } from "../../src/engine/settings.js";
import { isSummaryMessage } from "../../src/messages/summary-message.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { compactionMiddleware } from "../../src/runtimes/in-graph/compaction-middleware.js";
import type { InGraphCompactionEvent } from "../../src/runtimes/in-graph/compaction-event.js";
import type { CompactedReport } from "../../src/engine/report.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";
import { createStore, type TestStore } from "../support/savers.js";
import { listenForWarnings } from "../support/warnings.js";

/** The settings a HistoryManager resolves from `options` (the one resolver every runtime uses). */
function settingsOf(options: CompactionOptions) {
  return resolveSettings("a test", COMPACTION_OPTIONS, { env: {}, ...options });
}

describe("trigger and keep resolve to the policy the options table says", () => {
  it("trigger { tokens } and { fraction } of the window; keep { tokens } and { fraction } of the window", () => {
    expect(resolvePolicy({ trigger: { tokens: 2_000 } }).tokenLimit).toBe(2_000);
    expect(resolvePolicy({ trigger: { fraction: 0.5 } }).tokenLimit).toBe(64_000);
    expect(resolvePolicy({ trigger: { tokens: 2_000 }, keep: { tokens: 500 } }).cut).toEqual({
      by: "keep",
      tokens: 500,
    });
    expect(resolvePolicy({ trigger: { tokens: 8_000 }, keep: { fraction: 0.01 } }).cut).toEqual({
      by: "keep",
      tokens: 1_280,
    });
  });

  it("without keep: the newest messages beside the summary in 80% of the trigger; ceiling 90%; summary 60%", () => {
    const policy = resolvePolicy({ trigger: { tokens: 4_000 } });
    expect(policy.cut).toEqual({ by: "target", tokens: 3_200 });
    expect(policy.ceiling).toBe(3_600);
    expect(policy.summaryTokens).toBe(2_400);
    expect(resolvePolicy({ trigger: { tokens: 4_000 }, summaryLog: "append" }).summaryTokens).toBe(3_000);
    expect(resolvePolicy({ trigger: { tokens: 4_000 }, compactionRatio: 0.3 }).summaryTokens).toBe(1_000);
  });

  it("keep { messages } cuts by messages", () => {
    expect(resolvePolicy({ trigger: { tokens: 2_000 }, keep: { messages: 6 } }).cut).toEqual({
      by: "messages",
      messages: 6,
    });
  });
});

describe("a trigger of conditions: any condition holds when each of its fields does", () => {
  it.each<[string, CompactionOptions["trigger"], Array<[number, number, boolean]>]>([
    [
      "{ messages }",
      { messages: 6 },
      [
        [10, 5, false],
        [10, 6, true],
        [99_999, 5, false],
      ],
    ],
    [
      "{ tokens, messages } (AND)",
      { tokens: 3_000, messages: 6 },
      [
        [3_000, 5, false],
        [2_999, 6, false],
        [3_000, 6, true],
      ],
    ],
    [
      "a list (OR of ANDs)",
      [{ messages: 8 }, { tokens: 3_000, messages: 6 }],
      [
        [10, 7, false],
        [10, 8, true],
        [5_000, 6, true],
        [5_000, 5, false],
      ],
    ],
    [
      "a list of token figures",
      [{ tokens: 5_000 }, { fraction: 0.5 }],
      [
        [4_999, 1, false],
        [5_000, 1, true],
      ],
    ],
  ])("%s", (_, trigger, cases) => {
    const policy = resolvePolicy({ trigger });
    for (const [tokens, messages, over] of cases)
      expect({ tokens, messages, over: isOverLimit(policy, tokens, messages) }).toEqual({ tokens, messages, over });
  });

  it("is sized from its smallest token figure, or the default hard limit when a condition counts none", () => {
    expect(resolvePolicy({ trigger: [{ tokens: 5_000 }, { fraction: 0.5 }] }).tokenLimit).toBe(5_000);
    expect(resolvePolicy({ trigger: { messages: 6 } }).tokenLimit).toBe(
      resolvePolicy({ trigger: { fraction: 0.9 } }).tokenLimit,
    );
  });

  it("a condition on messages without a cut keeps half of them, at most 20 as langchain does; a cut given wins", () => {
    expect(resolvePolicy({ trigger: { messages: 60 } }).cut).toEqual({ by: "messages", messages: 20 });
    expect(resolvePolicy({ trigger: { messages: 12 } }).cut).toEqual({ by: "messages", messages: 6 });
    expect(resolvePolicy({ trigger: { messages: 30 }, keep: { tokens: 500 } }).cut).toEqual({
      by: "keep",
      tokens: 500,
    });
  });

  it("a size not known in messages (a stored size) is taken as holding: nothing is skipped on a guess", () => {
    expect(isOverLimit(resolvePolicy({ trigger: { messages: 6 } }), 10)).toBe(true);
  });
});

describe("refusals name the option and the value", () => {
  it.each<[string, CompactionOptions, string]>([
    ["a trigger of no condition", { trigger: [] }, "trigger"],
    ["a trigger condition of no field", { trigger: [{ messages: 8 }, {}] }, "trigger[1]"],
    ["a trigger condition of an unknown field", { trigger: { turns: 3 } as never }, "trigger"],
    ["a trigger of no messages", { trigger: { messages: 0 } }, "trigger.messages"],
    ["a trigger of a fraction of messages", { trigger: [{ messages: 2.5 }] }, "trigger[0].messages"],
    ["a trigger no compaction can get under", { trigger: { messages: 3 } }, "trigger"],
    ["a trigger of a fraction in tokens", { trigger: { tokens: 0.5 } }, "trigger.tokens"],
    ["a trigger too small once resolved", { trigger: { tokens: 50 } }, "trigger"],
    ["an empty keep", { trigger: { tokens: 2_000 }, keep: {} }, "keep"],
    ["a keep of two sizes", { trigger: { tokens: 2_000 }, keep: { tokens: 500, messages: 4 } }, "keep"],
    [
      "compactionRatio beside keep",
      { trigger: { tokens: 2_000 }, compactionRatio: 0.5, keep: { messages: 4 } },
      "compactionRatio",
    ],
    ["a keep of fewer than no messages", { trigger: { tokens: 2_000 }, keep: { messages: -1 } }, "keep.messages"],
    ["a keep of the whole window", { trigger: { tokens: 2_000 }, keep: { fraction: 1 } }, "keep.fraction"],
    [
      "a keep that leaves the thread at its trigger",
      { trigger: { messages: 10 }, keep: { messages: 9 } },
      "keep.messages",
    ],
  ])("%s", (_, options, parameter) => {
    let caught: unknown;
    try {
      settingsOf(options);
    } catch (error) {
      caught = error;
    }
    expect(CompactionError.isInstance(caught) && { code: caught.code, parameter: caught.parameter }).toEqual({
      code: "INVALID_ARGUMENT",
      parameter,
    });
  });

  it("contradictory options are refused naming both", () => {
    expect(() => settingsOf({ trigger: { tokens: 2_000 }, compactionRatio: 0.5, keep: { messages: 4 } })).toThrow(
      /compactionRatio.*keep/,
    );
  });
});

describe("keep { messages } through a real compaction", () => {
  let store: TestStore;
  beforeEach(async () => (store = await createStore("sqlite")));
  afterEach(async () => await store.close());

  /** Twenty-four turns through a wrapper compacting at 600 tokens; the head after them. */
  async function headAfterTurns(
    thread: string,
    keep?: { messages: number },
  ): Promise<{ head: BaseMessage[]; sent: BaseMessage[]; kept: number[] }> {
    const model = new ScriptedChatModel({
      reply: (messages) => ({
        content: `Noted: ${String(messages.at(-1)?.content)}. The invoice total stays 4,200 EUR; Alice Moreau approved it on 2026-03-14 after the second review.`,
      }),
    });
    const graph = createReactAgent({ llm: model, tools: [], checkpointer: store.saver });
    const kept: number[] = [];
    const supervisor = new CompactingSupervisor(graph, {
      trigger: { tokens: 600 },
      ...(keep ? { keep } : {}),
      background: false,
      onCompaction: (report) => void (report.status === "compacted" && kept.push(report.keptMessages!)),
    });
    const config = { configurable: { thread_id: thread } };
    let sent: BaseMessage[] = [];
    for (let turn = 0; turn < 24; turn++) {
      const result = await supervisor.invoke(
        {
          messages: [
            new HumanMessage({
              id: `${thread}-ask-${turn}`,
              content: `Question ${turn} about invoice INV-${100 + turn}: who approved it, and when?`,
            }),
          ],
        },
        config,
      );
      sent = result.messages as BaseMessage[];
    }
    return { head: (await graph.getState(config)).values.messages as BaseMessage[], sent, kept };
  }

  const verbatimAfterSummary = (head: BaseMessage[]) =>
    head.slice(head.findIndex((message) => isSummaryMessage(message)) + 1);

  it("keeps the newest messages verbatim, summarizes the rest", async () => {
    const { head, sent, kept } = await headAfterTurns("kept", { messages: 4 });
    expect(head.some((message) => isSummaryMessage(message))).toBe(true);
    // Each compaction kept the newest four messages (a turn is a question and its answer: whole units).
    expect(kept.length).toBeGreaterThan(1);
    expect(kept.every((count) => count === 4)).toBe(true);
    const verbatim = verbatimAfterSummary(head);
    // The newest four at least (more when turns landed after the compaction), verbatim and in order.
    expect(verbatim.length).toBeGreaterThanOrEqual(4);
    expect(verbatim.map((message) => message.id)).toEqual(sent.slice(-verbatim.length).map((message) => message.id));
    // Another count, another cut: the spelling is what cut.
    const { kept: three } = await headAfterTurns("three", { messages: 3 });
    expect(three.length).toBeGreaterThan(1);
    // Without tool calls every message is a unit of its own: the cut keeps exactly three.
    expect(three.every((count) => count === 3)).toBe(true);
  });
});

describe("a keep that cannot be honoured under the ceiling keeps as much as fits, and says so", () => {
  let store: TestStore;
  beforeEach(async () => (store = await createStore("sqlite")));
  afterEach(async () => await store.close());

  const LIMIT = 1_500;
  const reply = (messages: BaseMessage[]) => ({
    content: `Noted: ${String(messages.at(-1)?.content)}. The invoice total stays 4,200 EUR; Alice Moreau approved it on 2026-03-14 after the second review.`,
  });
  const ask = (thread: string, turn: number) => ({
    messages: [
      new HumanMessage({
        id: `${thread}-ask-${turn}`,
        content: `Question ${turn} about invoice INV-${100 + turn}: who approved it, and when was it paid?`,
      }),
    ],
  });
  const counter = new TokenCounter();

  it.each<[string, { messages: number } | { tokens: number }]>([
    ["keep.messages larger than the thread", { messages: 1_000 }],
    ["keep.tokens above the ceiling", { tokens: 1_200 }],
    ["keep.tokens of a billion", { tokens: 1e9 }],
  ])(
    "the wrapper, %s: compacts on time, keeps more than the latest turn, one notice, counted in compactionHealth",
    async (_, keep) => {
      const graph = createReactAgent({ llm: new ScriptedChatModel({ reply }), tools: [], checkpointer: store.saver });
      const warnings = listenForWarnings();
      const reports: CompactedReport[] = [];
      const supervisor = new CompactingSupervisor(graph, {
        trigger: { tokens: LIMIT },
        keep,
        background: false,
        onCompaction: (report) => void (report.status === "compacted" && reports.push(report)),
      });
      const config = { configurable: { thread_id: "keep-less" } };
      let peak = 0;
      for (let turn = 0; turn < 40; turn++) {
        await supervisor.invoke(ask("keep-less", turn), config);
        peak = Math.max(peak, counter.countMessages((await graph.getState(config)).values.messages as BaseMessage[]));
      }
      expect(reports.length).toBeGreaterThanOrEqual(2);
      expect(reports.every((report) => report.keptLess !== undefined)).toBe(true);
      // As much as fits, not the minimum: more than the latest question and its answer.
      expect(Math.max(...reports.map((report) => report.keptMessages!))).toBeGreaterThan(2);
      // The thread never passed the trigger by more than a turn.
      expect(peak).toBeLessThan(LIMIT + 200);
      const heard = await warnings.heard();
      warnings.stop();
      expect(heard.filter((warning) => warning.code === "KEPT_LESS")).toEqual([
        expect.objectContaining({
          message: expect.stringMatching(/^thread "keep-less": a compaction kept less than keep\./),
        }),
      ]);
      expect(supervisor.compactionHealth("keep-less").keptLess).toBe(reports.length);
    },
  );

  it("the wrapper without a notice handler: a process warning, once", async () => {
    const graph = createReactAgent({ llm: new ScriptedChatModel({ reply }), tools: [], checkpointer: store.saver });
    const warnings: Array<{ name: string; code?: string; message: string }> = [];
    const listen = (warning: Error & { code?: string }) =>
      void warnings.push({ name: warning.name, code: warning.code, message: warning.message });
    process.on("warning", listen);
    try {
      const supervisor = new CompactingSupervisor(graph, {
        trigger: { tokens: LIMIT },
        keep: { messages: 1_000 },
        background: false,
      });
      for (let turn = 0; turn < 30; turn++)
        await supervisor.invoke(ask("warned", turn), { configurable: { thread_id: "warned" } });
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", listen);
    }
    expect(warnings.filter((warning) => warning.code === "LANGGRAPH_COMPACTION_KEPT_LESS")).toEqual([
      expect.objectContaining({ message: expect.stringContaining("keep.messages 1000") }),
    ]);
  });

  it("the middleware, keep.messages larger than the thread: compacts, its event says what it kept less of", async () => {
    const events: InGraphCompactionEvent[] = [];
    const warnings = listenForWarnings();
    const middleware = compactionMiddleware({
      trigger: { tokens: LIMIT },
      keep: { messages: 1_000 },
      background: false,
      env: {},
      onCompaction: (event) => void events.push(event),
    });
    const agent = createAgent({
      model: new ScriptedChatModel({ reply }),
      tools: [],
      checkpointer: store.saver,
      middleware: [middleware],
    });
    const config = { configurable: { thread_id: "middleware-keep" } };
    for (let turn = 0; turn < 40; turn++) await agent.invoke(ask("middleware-keep", turn), config);
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(events.every((event) => event.keptLess === "keep.messages 1000")).toBe(true);
    const heard = await warnings.heard();
    warnings.stop();
    expect(heard.filter((warning) => warning.code === "KEPT_LESS")).toHaveLength(1);
    const head = (await agent.graph.getState(config)).values.messages as BaseMessage[];
    expect(counter.countMessages(head)).toBeLessThan(LIMIT + 200);
  });
});
