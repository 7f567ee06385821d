import { AIMessage, BaseMessage, HumanMessage } from "@langchain/core/messages";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CompactionError } from "../../src/errors.js";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { summaryLocks } from "../../src/engine/thread-lock.js";
import { getSummaryProvenance, isSummaryMessage } from "../../src/messages/summary-message.js";
import { validateHistory } from "../../src/messages/validate.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import type { Summarizer } from "../../src/summarizers/types.js";
import { createTestAgent, seedThread } from "../support/agents.js";
import { createStore, SAVER_KINDS, type TestStore } from "../support/savers.js";
import { compacted } from "../support/compacted.js";

function ids(messages: readonly BaseMessage[]): string[] {
  return messages.map((message) => message.id ?? "?");
}

describe.each(SAVER_KINDS)("HistoryManager on %s", (kind) => {
  let store: TestStore;
  beforeEach(async () => {
    store = await createStore(kind);
  });
  afterEach(async () => {
    await store.close();
  });

  it("compacts a real agent thread into [system, summary, kept] that the next turn sees exactly", async () => {
    const { agent, model } = createTestAgent(store.saver);
    await seedThread(agent, "t1", 9);
    const config = { configurable: { thread_id: "t1" } };
    const before = (await agent.getState(config)).values.messages as BaseMessage[];
    const manager = new HistoryManager({ checkpointer: store.saver, summarizer: new ExtractiveSummarizer() });

    const report = await manager.compactThread(config);
    expect(report.status).toBe("compacted");
    expect(compacted(report).summarizedMessages).toBeGreaterThan(0);
    expect(compacted(report).tokensAfter).toBeLessThan(report.tokensBefore!);

    const after = (await agent.getState(config)).values.messages as BaseMessage[];
    expect(after[0]!.getType()).toBe("system");
    expect(after[0]!.id).toBe("system-1");
    expect(isSummaryMessage(after[1])).toBe(true);
    expect(after.every((message) => BaseMessage.isInstance(message))).toBe(true);
    expect(validateHistory(after)).toEqual([]);
    // Kept messages are the newest ones, verbatim; every other original message is named in the provenance.
    const kept = after.slice(2);
    expect(ids(kept)).toEqual(ids(before.slice(before.length - kept.length)));
    const provenance = getSummaryProvenance(after[1])!;
    expect(provenance.replacedCheckpointId).toBe(report.previousCheckpointId);
    expect([...provenance.coveredIds, ...ids(kept), "system-1"].sort()).toEqual(ids(before).sort());

    model.calls.length = 0;
    await agent.invoke({ messages: [new HumanMessage({ id: "next-turn", content: "And now?" })] }, config);
    const seen = model.calls[0]!;
    expect(ids(seen)).toEqual([...ids(after), "next-turn"]);
    const final = (await agent.getState(config)).values.messages as BaseMessage[];
    expect(new Set(ids(final)).size).toBe(final.length);
  });

  it("is what a fresh process reads back, also on a forked thread", async () => {
    const { agent } = createTestAgent(store.saver);
    await seedThread(agent, "fork", 6);
    const config = { configurable: { thread_id: "fork" } };
    // Fork: continue from an earlier checkpoint, so stored versions of `messages` exceed the fork's own.
    const history = [];
    for await (const snapshot of agent.getStateHistory(config)) history.push(snapshot);
    // An early checkpoint, and a single turn on the fork: the fork's versions stay below the abandoned branch's.
    const early = history[Math.floor(history.length * 0.75)]!;
    await agent.invoke(
      { messages: [new HumanMessage({ id: "forked-turn", content: "a forked question about ord_77" })] },
      { configurable: { thread_id: "fork", checkpoint_id: early.config.configurable!.checkpoint_id } },
    );

    const before = (await store.saver.getTuple({ configurable: { thread_id: "fork", checkpoint_ns: "" } }))!.checkpoint
      .channel_values.messages as BaseMessage[];
    const manager = new HistoryManager({ checkpointer: store.saver, summarizer: new ExtractiveSummarizer() });
    const report = await manager.compactThread(config);
    expect(report.status).toBe("compacted");
    // What was written, derived from the head that was read, not from reading the store again.
    const expected = [
      "system-1",
      compacted(report).summaryId!,
      ...ids(before.slice(before.length - compacted(report).keptMessages!)),
    ];

    const fresh = await store.reopen();
    const tuple = await fresh.getTuple({ configurable: { thread_id: "fork", checkpoint_ns: "" } });
    expect(tuple!.checkpoint.id).toBe(compacted(report).newCheckpointId);
    const messages = tuple!.checkpoint.channel_values.messages as BaseMessage[];
    expect(ids(messages)).toEqual(expected);
    expect(isSummaryMessage(messages[1])).toBe(true);
    expect(ids((await agent.getState(config)).values.messages as BaseMessage[])).toEqual(expected);
  });

  it("rebases onto a turn committed while the summary was written: the turn is kept, the summary computed once", async () => {
    const { agent } = createTestAgent(store.saver);
    await seedThread(agent, "race", 8);
    const config = { configurable: { thread_id: "race" } };
    let calls = 0;
    const extractive = new ExtractiveSummarizer();
    // The first summary call lets a whole turn land before it answers: the compare-and-swap must notice.
    const racing: Summarizer = {
      name: "racing",
      async summarize(input) {
        calls++;
        if (calls === 1) {
          await agent.invoke(
            { messages: [new HumanMessage({ id: "raced-turn", content: "a turn that raced the compaction" })] },
            config,
          );
        }
        return extractive.summarize(input);
      },
    };
    const manager = new HistoryManager({ checkpointer: store.saver, summarizer: racing });
    const report = await manager.compactThread(config);
    expect(report.status).toBe("compacted");
    expect(calls).toBe(1);
    expect(compacted(report).rebased?.appendedMessages).toBe(2);
    expect(compacted(report).rebased?.snapshotCheckpointId).not.toBe(report.previousCheckpointId);
    const head = (await agent.getState(config)).values.messages as BaseMessage[];
    const covered = getSummaryProvenance(head[1])!.coveredIds;
    expect(head.some((message) => message.id === "raced-turn")).toBe(true);
    expect(covered).not.toContain("raced-turn");
    expect(head.some((message) => String(message.content).startsWith("You said: a turn that raced"))).toBe(true);
  });

  it("never runs two compactions of one thread at once in one process", async () => {
    const { agent } = createTestAgent(store.saver);
    await seedThread(agent, "locked", 9);
    let running = 0;
    let overlap = 0;
    let queuedBehind = 0;
    // The first summary holds until the other two compactions are queued behind it on the summary lock, or until a
    // second summary starts beside it (the overlap this test exists to catch): no timer decides.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const extractive = new ExtractiveSummarizer();
    const held: Summarizer = {
      name: "held",
      async summarize(input) {
        running++;
        overlap = Math.max(overlap, running);
        queuedBehind = Math.max(queuedBehind, summaryLocks.waiting(store.saver, "locked"));
        if (running > 1 || summaryLocks.waiting(store.saver, "locked") === 2) release();
        await released;
        running--;
        return extractive.summarize(input);
      },
    };
    const managers = [0, 1, 2].map(() => new HistoryManager({ checkpointer: store.saver, summarizer: held }));
    const reports = await Promise.all(
      managers.map((manager) => manager.compactThread({ configurable: { thread_id: "locked" } })),
    );
    expect(overlap).toBe(1);
    expect(queuedBehind).toBe(2);
    expect(reports.every((report) => report.attempts === 1)).toBe(true);
    expect(
      validateHistory(
        (await agent.getState({ configurable: { thread_id: "locked" } })).values.messages as BaseMessage[],
      ),
    ).toEqual([]);
  });

  it.each([
    ["throws", async () => Promise.reject(new Error("model exploded"))],
    ["returns empty text", async () => "   "],
    ["returns an error string", async () => "Error: rate limit exceeded"],
    ["times out", () => new Promise<string>(() => undefined)],
  ])("leaves the head unchanged when the summarizer %s", async (_, summarize) => {
    const { agent } = createTestAgent(store.saver);
    await seedThread(agent, "fail", 6);
    const config = { configurable: { thread_id: "fail" } };
    const headBefore = (await store.saver.getTuple(config))!.checkpoint.id;
    const manager = new HistoryManager({
      checkpointer: store.saver,
      summarizer: { name: "broken", summarize, timeoutMs: 200 },
    });
    const error = await manager.compactThread(config).catch((caught: unknown) => caught);
    expect(CompactionError.isInstance(error) && error.code).toBe("SUMMARIZER_FAILED");
    expect((await store.saver.getTuple(config))!.checkpoint.id).toBe(headBefore);
  });

  it("skips a thread with pending writes and leaves it untouched", async () => {
    const { agent } = createTestAgent(store.saver);
    await seedThread(agent, "busy", 6);
    const config = { configurable: { thread_id: "busy", checkpoint_ns: "" } };
    const head = (await store.saver.getTuple(config))!;
    await store.saver.putWrites(
      head.config,
      [["messages", [new AIMessage({ id: "in-flight", content: "half done" })]]],
      "task-1",
    );
    const manager = new HistoryManager({ checkpointer: store.saver, summarizer: new ExtractiveSummarizer() });
    const report = await manager.compactThread(config);
    expect(report.status).toBe("skipped");
    expect(report.reason).toMatch(/pending write/);
    expect((await store.saver.getTuple(config))!.checkpoint.id).toBe(head.checkpoint.id);
  });
});
