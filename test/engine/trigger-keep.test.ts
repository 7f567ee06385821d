/**
 * `trigger` and `keep`, the cut in the field's vocabulary (engine/trigger-keep.ts): each spelling resolves to the
 * policy its own settings make, `keep: { messages }` keeps the newest messages verbatim through a real compaction,
 * and a spelling beside the setting it spells, or one this library cannot honour, is refused naming it.
 */
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CompactionError } from "../../src/errors.js";
import { resolvePolicy, type CompactionPolicyOptions } from "../../src/engine/policy.js";
import { isSummaryMessage } from "../../src/messages/summary-message.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";
import { createStore, type TestStore } from "../support/savers.js";

describe("trigger and keep resolve to the policy their settings make", () => {
  it.each<[string, CompactionPolicyOptions, CompactionPolicyOptions]>([
    ["trigger { tokens }", { trigger: { tokens: 2_000 } }, { tokenLimit: 2_000 }],
    ["trigger { fraction }", { trigger: { fraction: 0.5 } }, { tokenLimit: 0.5 }],
    ["keep { tokens }", { tokenLimit: 2_000, keep: { tokens: 500 } }, { tokenLimit: 2_000, keepTokens: 500 }],
    ["keep { fraction } of the window", { tokenLimit: 8_000, keep: { fraction: 0.01 } }, { tokenLimit: 8_000, keepTokens: 1_280 }],
  ])("%s", (_, spelled, own) => {
    expect(resolvePolicy(spelled)).toEqual(resolvePolicy(own));
  });

  it("keep { messages } cuts by messages", () => {
    expect(resolvePolicy({ trigger: { tokens: 2_000 }, keep: { messages: 6 } }).cut).toEqual({ by: "messages", messages: 6 });
  });
});

describe("refusals name the option and the value", () => {
  it.each<[string, CompactionPolicyOptions, string]>([
    ["a trigger on messages", { trigger: { messages: 40 } }, "trigger"],
    ["a trigger beside tokenLimit", { tokenLimit: 2_000, trigger: { tokens: 2_000 } }, "trigger"],
    ["a trigger of a fraction in tokens", { trigger: { tokens: 0.5 } }, "trigger.tokens"],
    ["a trigger too small once resolved", { trigger: { tokens: 50 } }, "trigger.tokens"],
    ["an empty keep", { tokenLimit: 2_000, keep: {} }, "keep"],
    ["a keep of two sizes", { tokenLimit: 2_000, keep: { tokens: 500, messages: 4 } }, "keep"],
    ["a keep beside compactionRatio", { tokenLimit: 2_000, compactionRatio: 0.5, keep: { messages: 4 } }, "keep"],
    ["a keep of no messages", { tokenLimit: 2_000, keep: { messages: 0 } }, "keep.messages"],
    ["a keep of the whole window", { tokenLimit: 2_000, keep: { fraction: 1 } }, "keep.fraction"],
  ])("%s", (_, options, parameter) => {
    let caught: unknown;
    try {
      resolvePolicy(options);
    } catch (error) {
      caught = error;
    }
    expect(CompactionError.isInstance(caught) && { code: caught.code, parameter: caught.parameter }).toEqual({ code: "INVALID_ARGUMENT", parameter });
  });
});

describe("keep { messages } through a real compaction", () => {
  let store: TestStore;
  beforeEach(async () => (store = await createStore("sqlite")));
  afterEach(async () => await store.close());

  /** Twenty-four turns through a wrapper compacting at 600 tokens; the head after them. */
  async function headAfterTurns(thread: string, keep?: { messages: number }): Promise<{ head: BaseMessage[]; sent: BaseMessage[]; kept: number[] }> {
    const model = new ScriptedChatModel({ reply: (messages) => ({ content: `Noted: ${String(messages.at(-1)?.content)}. The invoice total stays 4,200 EUR; Alice Moreau approved it on 2026-03-14 after the second review.` }) });
    const graph = createReactAgent({ llm: model, tools: [], checkpointer: store.saver });
    const kept: number[] = [];
    const supervisor = new CompactingSupervisor(graph, { trigger: { tokens: 600 }, ...(keep ? { keep } : {}), background: false, onCompaction: (report) => void kept.push(report.keptMessages!) });
    const config = { configurable: { thread_id: thread } };
    let sent: BaseMessage[] = [];
    for (let turn = 0; turn < 24; turn++) {
      const result = await supervisor.invoke({ messages: [new HumanMessage({ id: `${thread}-ask-${turn}`, content: `Question ${turn} about invoice INV-${100 + turn}: who approved it, and when?` })] }, config);
      sent = result.messages as BaseMessage[];
    }
    return { head: (await graph.getState(config)).values.messages as BaseMessage[], sent, kept };
  }

  const verbatimAfterSummary = (head: BaseMessage[]) => head.slice(head.findIndex((message) => isSummaryMessage(message)) + 1);

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
