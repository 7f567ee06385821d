/**
 * auditThread must be able to fail: each check is shown catching the fault it exists for.
 */
import { HumanMessage, AIMessage, RemoveMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { MemorySaver } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { auditThread, ExtractiveSummarizer, HistoryManager } from "../../src/index.js";
import { createSummaryMessage } from "../../src/messages/summary-message.js";

const config = { configurable: { thread_id: "audited" } };

async function setup(turns = 6) {
  const saver = new MemorySaver();
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("agent", async () => ({}))
    .addEdge(START, "agent")
    .addEdge("agent", END)
    .compile({ checkpointer: saver });
  for (let index = 0; index < turns; index++) {
    await graph.updateState(
      config,
      {
        messages: [
          new HumanMessage({ id: `h${index}`, content: `question ${index} about invoice ${index * 7}` }),
          new AIMessage({ id: `a${index}`, content: `answer ${index}` }),
        ],
      },
      "agent",
    );
  }
  const manager = new HistoryManager({ checkpointer: saver, summarizer: new ExtractiveSummarizer() });
  return { saver, graph, manager };
}

describe("auditThread", () => {
  it("passes a compacted thread, counting messages in the head and covered", async () => {
    const { saver, manager } = await setup();
    await manager.compactThread(config, { compactionRatio: 0.5 });
    await manager.compactThread(config, { compactionRatio: 0.5 });
    const audit = await auditThread(saver, config);
    expect(audit.problems).toEqual([]);
    expect(audit.messagesEver).toBe(12);
    expect(audit.inHead + audit.covered).toBe(12);
    expect(audit.covered).toBeGreaterThan(0);
  });

  it("reports a message dropped without a summary, and not recorded in the recall index, as LOST_MESSAGE", async () => {
    const { saver, manager } = await setup();
    // A write that drops two messages and records none of them (what a bug in a writer would do): the store's own
    // compare-and-swap, without the transcript rows every write of the library carries.
    const head = (await manager.store.readHead("audited"))!;
    await manager.store.replaceHead({ threadId: "audited", head: head.tuple, messages: head.messages.slice(2) });
    const audit = await auditThread(saver, config);
    expect(audit.problems.map((problem) => [problem.code, problem.id])).toEqual([
      ["LOST_MESSAGE", "h0"],
      ["LOST_MESSAGE", "a0"],
    ]);
  });

  it("a message the application removed (RemoveMessage), still held by older checkpoints, is not LOST_MESSAGE", async () => {
    const { saver, graph } = await setup();
    await graph.updateState(
      config,
      { messages: [new RemoveMessage({ id: "h1" }), new RemoveMessage({ id: "a1" })] },
      "agent",
    );
    const audit = await auditThread(saver, config);
    expect(audit.problems).toEqual([]);
    expect(audit.removedByApplication).toBe(2);
    expect(audit.inHead).toBe(10);
  });

  it("counts a message a write of the library dropped and recorded in the recall index as recorded, not lost", async () => {
    const { saver, manager, graph } = await setup();
    const state = await graph.getState(config);
    await manager.replaceThreadHistory(config, state.values.messages.slice(2));
    const audit = await auditThread(saver, config);
    expect(audit.problems).toEqual([]);
    expect(audit.recorded).toBe(2);
    expect(audit.inHead + audit.covered + audit.recorded).toBe(audit.messagesEver);
  });

  it("reports a summary naming a checkpoint the store does not hold, or ids that checkpoint lacks", async () => {
    const { saver, graph } = await setup();
    const manager = new HistoryManager({ checkpointer: saver, summarizer: new ExtractiveSummarizer() });
    const state = await graph.getState(config);
    const fields = {
      coveredMessages: 2,
      coveredTokens: 10,
      firstCoveredId: "h0",
      lastCoveredId: "a0",
      previousSummaryId: null,
      summarizer: "test",
      model: null,
    };
    const ghost = createSummaryMessage("made up", {
      ...fields,
      replacedCheckpointId: "1ef00000-0000-6000-8000-000000000000",
      coveredIds: ["h0", "a0"],
    });
    // Written without transcript rows (the store's own compare-and-swap): what a faulty writer would leave.
    const stored = (await manager.store.readHead("audited"))!;
    await manager.store.replaceHead({
      threadId: "audited",
      head: stored.tuple,
      messages: [ghost, ...state.values.messages.slice(2)],
    });
    expect((await auditThread(saver, config)).problems.map((problem) => problem.code)).toEqual([
      "PROVENANCE_CHECKPOINT_MISSING",
      "LOST_MESSAGE",
      "LOST_MESSAGE",
    ]);

    const head = (await saver.getTuple(config))!.checkpoint.id;
    const wrong = createSummaryMessage("wrong ids", { ...fields, replacedCheckpointId: head, coveredIds: ["nope"] });
    await manager.replaceThreadHistory(config, [wrong, ...state.values.messages.slice(2)]);
    expect((await auditThread(saver, config)).problems.map((problem) => problem.code)).toContain(
      "COVERED_MESSAGE_MISSING",
    );
  });

  it("reports a message whose text changed under the same id as ALTERED_MESSAGE, and a missing thread as THREAD_NOT_FOUND", async () => {
    const { saver, manager, graph } = await setup(2);
    const state = await graph.getState(config);
    const changed = [new HumanMessage({ id: "h0", content: "rewritten" }), ...state.values.messages.slice(1)];
    const first = await saver.getTuple(config);
    await manager.replaceThreadHistory(config, changed);
    // The newest version is taken as the original; the older checkpoint's text differs only if it is covered.
    expect((await auditThread(saver, config)).problems).toEqual([]);
    const summary = createSummaryMessage("s", {
      coveredMessages: 1,
      coveredTokens: 1,
      firstCoveredId: "h0",
      lastCoveredId: "h0",
      previousSummaryId: null,
      summarizer: "test",
      model: null,
      replacedCheckpointId: first!.checkpoint.id,
      coveredIds: ["h0"],
    });
    await manager.replaceThreadHistory(config, [summary, ...state.values.messages.slice(1)]);
    expect((await auditThread(saver, config)).problems.map((problem) => problem.code)).toEqual(["ALTERED_MESSAGE"]);
    await expect(auditThread(saver, { configurable: { thread_id: "nobody" } })).rejects.toMatchObject({
      code: "THREAD_NOT_FOUND",
    });
  });
});
