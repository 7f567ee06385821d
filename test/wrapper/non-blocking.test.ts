/**
 * Compaction off the thread's critical path: turns go on while a summary is written, the summary lands in the gap
 * right after the turn in flight (rebased onto what was appended), every outcome reaches `onCompaction`, a
 * thread that started `lateness` turns over the limit is compacted before the next one, and a compaction that
 * cannot end under the ceiling is not written (no thrash). Phases are driven by gates the test opens, never by time.
 */
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { CompactionReport } from "../../src/engine/report.js";
import { getSummaryProvenance, isSummaryMessage } from "../../src/messages/summary-message.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import type { Summarizer, SummarizeInput } from "../../src/summarizers/types.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { auditThread } from "../../src/engine/audit.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";
import { pinMessage } from "../../src/messages/pins.js";
import { createStore, type TestStore } from "../support/savers.js";
import { compacted } from "../support/compacted.js";

/** A promise with its resolver. */
function gate(): { promise: Promise<void>; open: () => void; opened: boolean } {
  let open!: () => void;
  const state = { promise: new Promise<void>((resolve) => (open = resolve)), open: () => undefined, opened: false };
  state.open = () => {
    state.opened = true;
    open();
  };
  return state;
}

/** Yield to the event loop until `predicate` holds (a state the code under test reaches, not a duration). */
async function until(predicate: () => boolean, what: string): Promise<void> {
  for (let spins = 0; !predicate(); spins++) {
    if (spins > 200_000) throw new Error(`never reached: ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The extractive summarizer behind a gate: `started` opens when a summary begins; it answers once `release` is open. */
function gatedSummarizer() {
  const extractive = new ExtractiveSummarizer();
  const summarizer = {
    name: "gated",
    calls: 0,
    started: gate(),
    release: gate(),
    async summarize(input: SummarizeInput) {
      summarizer.calls++;
      summarizer.started.open();
      await summarizer.release.promise;
      return extractive.summarize(input);
    },
  };
  return summarizer;
}

const FILLER =
  "The customer asked about the invoice for the March order, its line items, the VAT rate and the delivery date.";

/** A ReAct agent whose `hold` tool waits for `holdGate` (a turn kept in flight), and records what the model saw. */
function createAgent(saver: BaseCheckpointSaver) {
  const holdGate = { current: gate(), entered: gate() };
  const hold = tool(
    async () => {
      holdGate.entered.open();
      await holdGate.current.promise;
      return "held";
    },
    { name: "hold", description: "Wait.", schema: z.object({}) },
  );
  const seen: BaseMessage[][] = [];
  const model = new ScriptedChatModel({
    reply: (messages) => {
      seen.push(messages);
      const last = messages.at(-1)!;
      if (ToolMessage.isInstance(last)) return { content: "Done holding." };
      if (HumanMessage.isInstance(last) && String(last.content).startsWith("hold"))
        return { toolCalls: [{ name: "hold", args: {} }] };
      return { content: `Noted: ${String(last.content).slice(0, 60)}` };
    },
  });
  const agent = createReactAgent({ llm: model, tools: [hold], checkpointer: saver });
  return { agent, seen, holdGate };
}

/** Run turns until one of them starts a summary (waiting, after each, until a summary starts or none is in flight). */
async function turnsUntilSummaryStarts(
  supervisor: CompactingSupervisor,
  summarizer: ReturnType<typeof gatedSummarizer>,
  threadId: string,
  from: number,
): Promise<number> {
  let turn = from;
  while (!summarizer.started.opened) {
    await supervisor.invoke(ask(turn++), { configurable: { thread_id: threadId } });
    await until(
      () => summarizer.started.opened || supervisor.compactionHealth(threadId).summary === "none",
      "the summary starts or none is in flight",
    );
  }
  return turn;
}

const ask = (turn: number, text = `turn ${turn}: ${FILLER}`) => ({
  messages: [new HumanMessage({ id: `ask-${turn}`, content: text })],
});

describe("compaction never holds up a turn", () => {
  let store: TestStore;
  beforeEach(async () => {
    store = await createStore("sqlite");
  });
  afterEach(async () => {
    await store.close();
  });

  it("runs the next turns on the uncompacted head while the summary is written, then rebases onto them", async () => {
    const { agent } = createAgent(store.saver);
    const summarizer = gatedSummarizer();
    const outcomes: CompactionReport[] = [];
    // Four turns may start over the limit before one waits for the summary (the bound on lateness).
    const supervisor = new CompactingSupervisor(agent, {
      trigger: { tokens: 600 },
      summarizer,
      lateness: 4,
      onCompaction: (report) => void outcomes.push(report),
    });
    const config = { configurable: { thread_id: "busy" } };
    let turn = await turnsUntilSummaryStarts(supervisor, summarizer, "busy", 0);
    expect(supervisor.compactionHealth("busy").summary).toBe("computing");
    // Three more turns complete while the summarizer is still held: nothing waits for it.
    const lengths: number[] = [];
    for (let extra = 0; extra < 3; extra++) {
      const result = await supervisor.invoke(ask(turn++), config);
      lengths.push((result.messages as BaseMessage[]).length);
      expect(summarizer.release.opened).toBe(false);
    }
    expect(lengths[2]! - lengths[0]!).toBe(4);
    expect(supervisor.compactionHealth("busy").turnsOverLimit).toBeGreaterThanOrEqual(3);

    summarizer.release.open();
    await supervisor.flush();
    expect(summarizer.calls).toBe(1);
    const landed = outcomes.filter((report) => report.status === "compacted");
    expect(landed).toHaveLength(1);
    expect(landed[0]!.rebased?.appendedMessages).toBe(6);
    const head = (await supervisor.getState(config)).values.messages as BaseMessage[];
    expect(isSummaryMessage(head[0])).toBe(true);
    for (let late = turn - 3; late < turn; late++)
      expect(head.some((message) => message.id === `ask-${late}`)).toBe(true);
    expect(getSummaryProvenance(head[0])!.coveredIds).not.toContain(`ask-${turn - 1}`);
    expect(supervisor.compactionHealth("busy")).toMatchObject({
      consecutiveFailures: 0,
      turnsOverLimit: 0,
      summary: "none",
    });
    expect((await auditThread(store.saver, config)).problems).toEqual([]);
  });

  it("applies a summary that became ready during a turn right after that turn, before the call returns", async () => {
    const { agent, holdGate } = createAgent(store.saver);
    const summarizer = gatedSummarizer();
    const supervisor = new CompactingSupervisor(agent, { trigger: { tokens: 600 }, summarizer });
    const config = { configurable: { thread_id: "gap" } };
    let turn = await turnsUntilSummaryStarts(supervisor, summarizer, "gap", 0);
    const held = supervisor.invoke(ask(turn++, "hold the line please"), config);
    await holdGate.entered.promise;
    summarizer.release.open();
    await until(() => supervisor.compactionHealth("gap").summary === "ready", "the summary is ready");
    // Ready, but a turn is in flight: nothing is written under it.
    expect(isSummaryMessage(((await supervisor.getState(config)).values.messages as BaseMessage[])[0])).toBe(false);
    holdGate.current.open();
    const result = await held;
    expect((result.messages as BaseMessage[]).at(-1)!.content).toBe("Done holding.");
    // The call returned after the rebased write: the head already starts with the summary and holds the held turn.
    const head = (await supervisor.getState(config)).values.messages as BaseMessage[];
    expect(isSummaryMessage(head[0])).toBe(true);
    expect(head.at(-1)!.content).toBe("Done holding.");
    expect(supervisor.compactionHealth("gap").summary).toBe("none");
  });

  it("after `lateness` turns started over the limit, the next turn runs on the compacted head", async () => {
    const { agent, seen } = createAgent(store.saver);
    const summarizer = gatedSummarizer();
    const supervisor = new CompactingSupervisor(agent, { trigger: { tokens: 600 }, summarizer, lateness: 2 });
    const config = { configurable: { thread_id: "starved" } };
    let turn = await turnsUntilSummaryStarts(supervisor, summarizer, "starved", 0);
    // Turns go on over the limit while the summary is held, up to the bound.
    while (supervisor.compactionHealth("starved").turnsOverLimit < 2) await supervisor.invoke(ask(turn++), config);
    expect(summarizer.release.opened).toBe(false);
    const next = supervisor.invoke(ask(turn++), config);
    summarizer.release.open();
    await next;
    // The turn waited for the summary in flight, which landed; nothing was summarized a second time.
    expect(summarizer.calls).toBe(1);
    const sawSummary = seen.at(-1)!.some((message) => isSummaryMessage(message));
    expect(sawSummary).toBe(true);
    expect(supervisor.compactionHealth("starved").turnsOverLimit).toBe(0);
  });
});

describe("every outcome is heard, and nothing thrashes", () => {
  let store: TestStore;
  beforeEach(async () => {
    store = await createStore("sqlite");
  });
  afterEach(async () => {
    await store.close();
  });

  async function writesOf(threadId: string): Promise<number> {
    let writes = 0;
    for await (const tuple of store.saver.list({ configurable: { thread_id: threadId } }))
      if ((tuple.metadata as { compaction?: unknown })?.compaction) writes++;
    return writes;
  }

  it("reports a conflict when the summarized prefix was edited meanwhile, writes nothing, and compacts again later", async () => {
    const { agent } = createAgent(store.saver);
    const summarizer = gatedSummarizer();
    const outcomes: CompactionReport[] = [];
    const supervisor = new CompactingSupervisor(agent, {
      trigger: { tokens: 600 },
      summarizer,
      onCompaction: (report) => void outcomes.push(report),
    });
    const config = { configurable: { thread_id: "edited" } };
    let turn = await turnsUntilSummaryStarts(supervisor, summarizer, "edited", 0);
    await supervisor.updateState(config, {
      messages: [new HumanMessage({ id: "ask-0", content: "an edited first request" })],
    });
    summarizer.release.open();
    await supervisor.flush();
    expect(outcomes.map((report) => report.status)).toEqual(["conflict"]);
    expect(outcomes[0]!.reason).toMatch(/summary was discarded: message 0 of the summarized prefix changed/);
    expect(await writesOf("edited")).toBe(0);
    await supervisor.invoke(ask(turn++), config);
    await supervisor.flush();
    expect(outcomes.at(-1)!.status).toBe("compacted");
  });

  it("a tiny limit: compactions that would not end under the limit are skipped, said so, and never written turn after turn", async () => {
    const { agent } = createAgent(store.saver);
    const outcomes: CompactionReport[] = [];
    const summarizer = gatedSummarizer();
    summarizer.release.open();
    const supervisor = new CompactingSupervisor(agent, {
      trigger: { tokens: 120 },
      summarizer,
      onCompaction: (report) => void outcomes.push(report),
    });
    const config = { configurable: { thread_id: "tiny" } };
    const writesAfter: number[] = [];
    for (let turn = 0; turn < 12; turn++) {
      // Every other turn long enough that, beside a summary of 60% of the trigger, it cannot end under it.
      const note =
        turn % 2
          ? `turn ${turn}: ${"a longer note about the refund of order ord_4471; ".repeat(3)}`
          : `turn ${turn}: short note`;
      await supervisor.invoke(ask(turn, note), config);
      await supervisor.flush();
      writesAfter.push(await writesOf("tiny"));
    }
    const written = outcomes.filter((report) => report.status === "compacted");
    // Written only when it ends under the limit (it aims 10% lower, but never shrinks the summary to get there).
    for (const report of written) expect(report.tokensAfter!).toBeLessThanOrEqual(120);
    expect(outcomes.some((report) => report.status === "skipped" && /not under the limit/.test(report.reason))).toBe(
      true,
    );
    expect(writesAfter.at(-1)).toBe(written.length);
    // Never written on two turns in a row: a written compaction leaves room for at least a turn.
    for (let turn = 2; turn < writesAfter.length; turn++)
      expect(writesAfter[turn]! - writesAfter[turn - 2]!).toBeLessThanOrEqual(1);
  });

  it("a huge single message: skipped while it is the current turn, compacted once a newer turn makes it summarizable", async () => {
    const { agent } = createAgent(store.saver);
    const outcomes: CompactionReport[] = [];
    const supervisor = new CompactingSupervisor(agent, {
      trigger: { tokens: 2_000 },
      onCompaction: (report) => void outcomes.push(report),
    });
    const config = { configurable: { thread_id: "huge" } };
    await supervisor.invoke(ask(0, `turn 0: ${"invoice line 4411 ".repeat(1_500)}`), config);
    await supervisor.flush();
    expect(outcomes.map((report) => report.status)).toEqual(["skipped"]);
    expect(outcomes[0]!.reason).toMatch(/nothing to summarize|ceiling/);
    await supervisor.invoke(ask(1), config);
    await supervisor.flush();
    expect(outcomes.at(-1)!.status).toBe("compacted");
    expect(compacted(outcomes.at(-1)).tokensAfter).toBeLessThanOrEqual(1_800);
  });

  it("a thread that is all pinned: skipped and said so, the summarizer never called, nothing written", async () => {
    // Every message pinned (pinMessage's marker): the questions, and the answers the model marks so.
    const agent = createReactAgent({
      llm: new ScriptedChatModel({
        reply: () => ({ content: `Noted. ${FILLER}`, additionalKwargs: { pinned: true } }),
      }),
      tools: [],
      checkpointer: store.saver,
    });
    const outcomes: CompactionReport[] = [];
    const summarizer: Summarizer & { calls: number } = {
      name: "never",
      calls: 0,
      summarize: async () => (summarizer.calls++, "x"),
    };
    const supervisor = new CompactingSupervisor(agent, {
      trigger: { tokens: 300 },
      summarizer,
      onCompaction: (report) => void outcomes.push(report),
    });
    const config = { configurable: { thread_id: "pinned" } };
    for (let turn = 0; turn < 6; turn++) {
      await supervisor.invoke({ messages: [pinMessage(new HumanMessage(`turn ${turn}: ${FILLER}`))] }, config);
      await supervisor.flush();
    }
    expect(outcomes.length).toBeGreaterThan(0);
    for (const report of outcomes) {
      expect(report.status).toBe("skipped");
      expect(report.reason).toMatch(/pinned/);
    }
    expect(summarizer.calls).toBe(0);
    expect(await writesOf("pinned")).toBe(0);
    expect(supervisor.compactionHealth("pinned").summary).toBe("none");
  });
});
