import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import type { BaseCheckpointSaver, CheckpointTuple } from "@langchain/langgraph-checkpoint";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { isSummaryMessage } from "../../src/messages/summary-message.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import { createCustomGraph } from "../support/custom-graph.js";
import { createStore, SAVER_KINDS, type TestStore } from "../support/savers.js";
import { compacted } from "../support/compacted.js";

async function allTuples(saver: BaseCheckpointSaver, threadId: string): Promise<CheckpointTuple[]> {
  const tuples: CheckpointTuple[] = [];
  // Without checkpoint_ns every namespace is listed (root and sub-agents).
  for await (const tuple of saver.list({ configurable: { thread_id: threadId } })) tuples.push(tuple);
  return tuples;
}

async function say(graph: ReturnType<typeof createCustomGraph>, threadId: string, text: string, index: number) {
  return graph.invoke(
    { messages: [new HumanMessage({ id: `user-${threadId}-${index}`, content: text })] },
    { configurable: { thread_id: threadId } },
  );
}

describe.each(SAVER_KINDS)("thread safety on %s", (kind) => {
  let store: TestStore;
  beforeEach(async () => {
    store = await createStore(kind);
  });
  afterEach(async () => {
    await store.close();
  });

  it("leaves sub-agent namespaces and non-message channels byte-for-byte unchanged, and keeps older checkpoints", async () => {
    const graph = createCustomGraph(store.saver);
    for (let index = 0; index < 8; index++)
      await say(graph, "channels", `request ${index}: invoice ord_${index} for Chen Wei`, index);
    const config = { configurable: { thread_id: "channels" } };
    const before = await graph.getState(config);
    const tuplesBefore = await allTuples(store.saver, "channels");
    const subAgent = (tuples: CheckpointTuple[]) =>
      tuples
        .filter((tuple) => tuple.config.configurable?.checkpoint_ns !== "")
        .map((tuple) => JSON.stringify([tuple.config, tuple.checkpoint, tuple.metadata]));
    expect(subAgent(tuplesBefore).length).toBeGreaterThan(0);

    const manager = new HistoryManager({ checkpointer: store.saver, summarizer: new ExtractiveSummarizer() });
    const report = await manager.compactThread(config);
    expect(report.status).toBe("compacted");

    const after = await graph.getState(config);
    expect(isSummaryMessage((after.values.messages as BaseMessage[])[0])).toBe(true);
    expect(JSON.stringify(after.values.todos)).toBe(JSON.stringify(before.values.todos));
    expect(JSON.stringify(after.values.files)).toBe(JSON.stringify(before.values.files));
    expect(after.next).toEqual([]);
    const tuplesAfter = await allTuples(store.saver, "channels");
    expect(subAgent(tuplesAfter)).toEqual(subAgent(tuplesBefore));
    // The old head and everything before it are still listed and readable.
    const history: string[] = [];
    for await (const snapshot of graph.getStateHistory(config))
      history.push(snapshot.config.configurable!.checkpoint_id as string);
    expect(history[0]).toBe(compacted(report).newCheckpointId);
    expect(history).toContain(report.previousCheckpointId);
    const old = await graph.getState({
      configurable: { thread_id: "channels", checkpoint_id: report.previousCheckpointId },
    });
    expect((old.values.messages as BaseMessage[]).length).toBe((before.values.messages as BaseMessage[]).length);

    const next = await say(graph, "channels", "one more request after the compaction", 99);
    expect((next.messages as BaseMessage[]).at(-1)!.content).toMatch(/Noted: one more request/);
  });

  it("leaves a thread paused at interrupt() untouched, and it resumes normally", async () => {
    const graph = createCustomGraph(store.saver);
    for (let index = 0; index < 6; index++) await say(graph, "paused", `request ${index} about the Q3 budget`, index);
    await say(graph, "paused", "please approve the 4,200 EUR purchase", 6);
    const config = { configurable: { thread_id: "paused" } };
    const paused = await graph.getState(config);
    expect(paused.next).toEqual(["approve"]);
    const headBefore = (await store.saver.getTuple({ configurable: { thread_id: "paused", checkpoint_ns: "" } }))!
      .checkpoint.id;

    const report = await new HistoryManager({
      checkpointer: store.saver,
      summarizer: new ExtractiveSummarizer(),
    }).compactThread(config);
    expect(report.status).toBe("skipped");
    expect(report.reason).toMatch(/interrupt|pending/);
    expect(
      (await store.saver.getTuple({ configurable: { thread_id: "paused", checkpoint_ns: "" } }))!.checkpoint.id,
    ).toBe(headBefore);

    const resumed = await graph.invoke(new Command({ resume: "yes, approved" }), config);
    expect((resumed.messages as BaseMessage[]).at(-1)!.content).toBe("Approval answer: yes, approved");
    const manager = new HistoryManager({ checkpointer: store.saver, summarizer: new ExtractiveSummarizer() });
    expect((await manager.compactThread(config)).status).toBe("compacted");
  });
});
