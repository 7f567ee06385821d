/**
 * Summaries computed off a snapshot and applied by a rebasing compare-and-swap (prepareCompaction /
 * applyCompaction / compactThread), and the ceiling that keeps a compaction from being useless.
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HistoryManager, type PreparedCompaction } from "../../src/engine/history-manager.js";
import { getSummaryProvenance, isSummaryMessage } from "../../src/messages/summary-message.js";
import { pinMessage } from "../../src/messages/pins.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import type { Summarizer, SummarizeInput } from "../../src/summarizers/types.js";
import { createTestAgent, runTurns, seedThread } from "../support/agents.js";
import { createStore, SAVER_KINDS, type TestStore } from "../support/savers.js";
import { compacted } from "../support/compacted.js";

/** The extractive summarizer, counting its calls. */
function countingSummarizer(): Summarizer & { calls: number } {
  const extractive = new ExtractiveSummarizer();
  const summarizer = {
    name: "counting",
    calls: 0,
    async summarize(input: SummarizeInput) {
      summarizer.calls++;
      return extractive.summarize(input);
    },
  };
  return summarizer;
}

const headOf = async (store: TestStore, threadId: string) =>
  (await store.saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } }))!;

describe.each(SAVER_KINDS)("rebasing compaction on %s", (kind) => {
  let store: TestStore;
  beforeEach(async () => {
    store = await createStore(kind);
  });
  afterEach(async () => {
    await store.close();
  });

  it("applies a summary prepared before two turns landed: the turns are kept verbatim after it", async () => {
    const { agent } = createTestAgent(store.saver);
    await seedThread(agent, "grown", 8);
    const config = { configurable: { thread_id: "grown" } };
    const summarizer = countingSummarizer();
    const manager = new HistoryManager({ checkpointer: store.saver, summarizer });
    const prepared = (await manager.prepareCompaction(config)) as PreparedCompaction;
    expect(prepared.status).toBe("prepared");
    const snapshot = (await headOf(store, "grown")).checkpoint.id;
    expect(prepared.snapshotCheckpointId).toBe(snapshot);
    await runTurns(agent, "grown", 2, { from: 100 });
    const grown = (await agent.getState(config)).values.messages as BaseMessage[];

    const report = await manager.applyCompaction(prepared);
    expect(report.status).toBe("compacted");
    expect(compacted(report).rebased).toEqual({
      snapshotCheckpointId: snapshot,
      appendedMessages: grown.length - prepared.snapshotLength,
    });
    expect(summarizer.calls).toBe(1);
    const head = (await agent.getState(config)).values.messages as BaseMessage[];
    expect(isSummaryMessage(head[1])).toBe(true);
    // Everything after the summarized prefix, the two new turns included, is there unchanged and in order.
    expect(head.slice(2).map((message) => message.id)).toEqual(
      grown.slice(prepared.compacted.plan.prefixLength).map((message) => message.id),
    );
    expect(compacted(report).tokensAfter).toBe(manager.counter.countMessages(head));
    // The summary covers exactly the snapshot's prefix.
    expect(getSummaryProvenance(head[1])!.coveredIds).toEqual(
      prepared.compacted.plan.summarize.map((message) => message.id),
    );
  });

  it("writes nothing when the summarized prefix changed meanwhile, and compactThread then summarizes the new head once", async () => {
    const { agent } = createTestAgent(store.saver);
    await seedThread(agent, "changed", 8);
    const config = { configurable: { thread_id: "changed" } };
    const manager = new HistoryManager({ checkpointer: store.saver, summarizer: new ExtractiveSummarizer() });
    const prepared = (await manager.prepareCompaction(config)) as PreparedCompaction;
    // Another writer compacts the thread first: the prefix the prepared summary covers is gone from the head.
    const other = new HistoryManager({ checkpointer: store.saver, summarizer: new ExtractiveSummarizer() });
    expect((await other.compactThread(config)).status).toBe("compacted");
    const headBefore = (await headOf(store, "changed")).checkpoint.id;
    const report = await manager.applyCompaction(prepared);
    expect(report.status).toBe("conflict");
    expect(report.reason).toMatch(/summary was discarded/);
    expect((await headOf(store, "changed")).checkpoint.id).toBe(headBefore);

    // An edit of one summarized message (same id, new content) discards it too.
    await runTurns(agent, "changed", 4, { from: 200 });
    const again = (await manager.prepareCompaction(config)) as PreparedCompaction;
    const edited = again.prefix.at(-1)!;
    await agent.updateState(config, { messages: [new AIMessage({ id: edited.id, content: "an edited answer" })] });
    const editedHead = (await headOf(store, "changed")).checkpoint.id;
    expect((await manager.applyCompaction(again)).status).toBe("conflict");
    expect((await headOf(store, "changed")).checkpoint.id).toBe(editedHead);

    // compactThread: the first summary is discarded by an edit of its prefix landing during it, the second lands.
    await runTurns(agent, "changed", 4, { from: 300 });
    let calls = 0;
    const extractive = new ExtractiveSummarizer();
    const racing: Summarizer = {
      name: "racing",
      async summarize(input) {
        calls++;
        const first = input.messages[0]!;
        if (calls === 1)
          await agent.updateState(config, {
            messages: [new HumanMessage({ id: first.id, content: "edited while summarized" })],
          });
        return extractive.summarize(input);
      },
    };
    const raced = await new HistoryManager({ checkpointer: store.saver, summarizer: racing }).compactThread(config);
    expect(raced.status).toBe("compacted");
    expect(calls).toBe(2);
  });

  it("leaves a prepared summary unapplied on an interrupted head, and it still applies once the head is idle", async () => {
    const { agent } = createTestAgent(store.saver);
    await seedThread(agent, "paused", 6);
    const config = { configurable: { thread_id: "paused" } };
    const manager = new HistoryManager({ checkpointer: store.saver, summarizer: new ExtractiveSummarizer() });
    const prepared = (await manager.prepareCompaction(config)) as PreparedCompaction;
    const head = await headOf(store, "paused");
    await store.saver.putWrites(head.config, [["__interrupt__", [{ value: "approve?" }]]], "task-approve");
    const skipped = await manager.applyCompaction(prepared);
    expect(skipped.status).toBe("skipped");
    expect(skipped.reason).toMatch(/interrupt/);
    expect((await headOf(store, "paused")).checkpoint.id).toBe(head.checkpoint.id);
    // A new turn makes the head idle again (the interrupt write stays on the old checkpoint).
    await runTurns(agent, "paused", 1, { from: 400 });
    expect((await manager.applyCompaction(prepared)).status).toBe("compacted");
  });
});

describe("the ceiling: a compaction that would not end under it compacts harder or is not written", () => {
  let store: TestStore;
  beforeEach(async () => {
    store = await createStore("sqlite");
  });
  afterEach(async () => {
    await store.close();
  });

  it("cuts harder when the default plan would end above the ceiling", async () => {
    const { agent } = createTestAgent(store.saver);
    await seedThread(agent, "harder", 10);
    const config = { configurable: { thread_id: "harder" } };
    const manager = new HistoryManager({
      checkpointer: store.saver,
      summarizer: new ExtractiveSummarizer(),
      compactionRatio: 0.2,
    });
    const before = manager.counter.countMessages((await agent.getState(config)).values.messages as BaseMessage[]);
    const ceiling = Math.floor(before * 0.5);
    const report = await manager.compactThread(config, { maxTokensAfter: ceiling });
    expect(report.status).toBe("compacted");
    expect(report.reason).toMatch(/cut harder/);
    expect(compacted(report).tokensAfter).toBeLessThanOrEqual(ceiling);
  });

  it("writes nothing and never calls the summarizer when even the hardest cut would not fit (tiny limit, huge latest turn, all pinned)", async () => {
    const { agent } = createTestAgent(store.saver);
    await seedThread(agent, "tiny", 4);
    const summarizer = countingSummarizer();
    const manager = new HistoryManager({ checkpointer: store.saver, summarizer });
    const config = { configurable: { thread_id: "tiny" } };
    const head = (await headOf(store, "tiny")).checkpoint.id;
    const tiny = await manager.compactThread(config, { maxTokensAfter: 60 });
    expect(tiny.status).toBe("skipped");
    expect(tiny.reason).toMatch(/not under the limit of 60$/);

    // A huge message in the latest turn cannot be summarized (the current turn never is).
    await agent.invoke(
      { messages: [new HumanMessage({ id: "huge", content: "invoice line ".repeat(5_000) })] },
      config,
    );
    const huge = await manager.compactThread(config, { maxTokensAfter: 2_000 });
    expect(huge.status).toBe("skipped");
    expect(huge.reason).toMatch(/not under the limit of 2000$/);

    const pinnedThread = { configurable: { thread_id: "pinned" } };
    await agent.invoke(
      { messages: [pinMessage(new HumanMessage({ id: "p0", content: "keep this: account 4411" }))] },
      pinnedThread,
    );
    const pinnedManager = new HistoryManager({ checkpointer: store.saver, summarizer });
    await runTurns(agent, "pinned", 3, { from: 500 });
    // Every message pinned: nothing may be summarized.
    const everyMessage = (await agent.getState(pinnedThread)).values.messages as BaseMessage[];
    await pinnedManager.replaceThreadHistory(
      pinnedThread,
      everyMessage.map((message) => pinMessage(message)),
    );
    const pinned = await pinnedManager.compactThread(pinnedThread);
    expect(pinned.status).toBe("skipped");
    expect(pinned.reason).toMatch(/pinned/);

    expect(summarizer.calls).toBe(0);
    expect((await headOf(store, "tiny")).checkpoint.id).not.toBe(head); // the huge turn moved it; nothing else did
    expect(isSummaryMessage(((await agent.getState(config)).values.messages as BaseMessage[])[1])).toBe(false);
  });
});
