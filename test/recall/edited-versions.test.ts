/**
 * A message edited under its id (`updateState`, an `Overwrite`) has several versions, and the transcript keeps each.
 * Search has one rule for all of them, whatever wrote them (a compaction, a prune's backfill, a reindex): a message is
 * found by the words of its newest version, and only while the head does not hold it. An older version — the edit
 * may be a redaction — is kept for the record (`readTranscript`'s `versions`), never found. The same on every backend.
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { MessagesAnnotation, StateGraph, START } from "@langchain/langgraph";
import { afterEach, describe, expect, it } from "vitest";
import { recallText } from "../../src/messages/message-shape.js";
import { createHistorySearchTool } from "../../src/recall/tool.js";
import { searchHistory } from "../../src/recall/search.js";
import { threadStoreFor } from "../../src/store/thread-store.js";
import { readTranscript } from "../../src/recall/transcript.js";
import { reindexThread } from "../../src/recall/reindex.js";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { pruneThread } from "../../src/engine/prune.js";
import { baseStoreRecallFor } from "../../src/store/recall-index/base-store-index.js";
import type { RecallEntry } from "../../src/store/recall-index/types.js";
import { createIndexedBaseStore } from "../support/indexed-store.js";
import { createStore, SAVER_KINDS, type TestStore } from "../support/savers.js";

const THREAD = "edited";
const config = { configurable: { thread_id: THREAD } };

const before = new HumanMessage({ id: "meeting", content: "Let us meet in Paris on the ninth, by the river." });
const after = new HumanMessage({ id: "meeting", content: "Change of plan: we meet in Rome on the ninth instead." });
const other = new HumanMessage({ id: "other", content: "Bring the drawings of the bridge." });

const entry = (message: BaseMessage, checkpointId: string, ordinal: number): RecallEntry => ({
  messageId: message.id!,
  role: "user",
  checkpointId,
  ordinal,
  text: recallText(message),
});

/** The transcript as two writes leave it: the message as first written, then its edit under the same id. */
const WRITES: RecallEntry[][] = [[entry(before, "1f0-a", 0), entry(other, "1f0-a", 1)], [entry(after, "1f0-b", 0)]];

function noopGraph(store: TestStore) {
  return new StateGraph(MessagesAnnotation)
    .addNode("noop", () => ({}))
    .addEdge(START, "noop")
    .compile({ checkpointer: store.saver });
}

const found = async (store: TestStore, query: string) =>
  (await searchHistory(store.saver, config, query)).map((hit) => [hit.messageId, hit.text]);

describe.each(SAVER_KINDS)("search over edited messages (%s)", (kind) => {
  let store: TestStore;
  afterEach(async () => store?.close());

  it("finds a message by its newest version's words only; an older version is in the transcript, not found", async () => {
    store = await createStore(kind);
    for (const add of WRITES) await threadStoreFor(store.saver).recall.record({ threadId: THREAD, add });
    expect(await found(store, "Paris river")).toEqual([]);
    expect(await found(store, "Rome")).toEqual([["meeting", recallText(after)]]);
    const tool = createHistorySearchTool({ checkpointer: store.saver });
    expect(String(await tool.invoke({ query: "Paris" }, config))).not.toContain("Paris");
    const [line] = (await readTranscript(store.saver, config)).messages.filter((item) => item.message.id === "meeting");
    expect(line!.versions?.map((version) => String(version.content))).toEqual([String(before.content)]);
  });

  it("nothing the head holds is found, by any version", async () => {
    store = await createStore(kind);
    for (const add of WRITES) await threadStoreFor(store.saver).recall.record({ threadId: THREAD, add });
    await noopGraph(store).invoke({ messages: [before, other] }, config);
    expect(await found(store, "Rome")).toEqual([]);
    expect(await found(store, "Paris")).toEqual([]);
    expect(await found(store, "drawings bridge")).toEqual([]);
  });

  it("an edit, then a compaction, then a prune, then a reindex: the same answer after each", async () => {
    store = await createStore(kind);
    const graph = noopGraph(store);
    const turns: BaseMessage[] = [before];
    for (let index = 0; index < 12; index++)
      turns.push(
        new HumanMessage({ id: `q-${index}`, content: `Question ${index} about the invoice for order ord_${index}?` }),
        new AIMessage({ id: `a-${index}`, content: `Order ord_${index} was invoiced at ${100 + index} EUR.` }),
      );
    await graph.invoke({ messages: turns }, config);
    // The application edits the first message under its id (a correction, or a redaction).
    await graph.updateState(config, { messages: [after] });
    // (A message is also found by the words of the one before it: "Rome" finds the question after the edited one too.)
    const answers = async () => ({
      old: (await found(store, "Paris river")).filter(([id]) => id === "meeting"),
      newest: (await found(store, "Rome"))[0],
    });
    const expected = { old: [], newest: ["meeting", recallText(after)] };
    const manager = new HistoryManager({ checkpointer: store.saver, trigger: { tokens: 300 }, env: {} });
    const report = await manager.compactThread(config, { force: true });
    expect(report.status, report.reason).toBe("compacted");
    expect(await answers(), "after the compaction").toEqual(expected);
    await pruneThread(store.saver, config, { keep: 1 });
    expect(await answers(), "after the prune").toEqual(expected);
    // The prune kept the older version for the record.
    const [line] = (await readTranscript(store.saver, config)).messages.filter((item) => item.message.id === "meeting");
    expect(line!.versions?.map((version) => String(version.content))).toEqual([String(before.content)]);
    await reindexThread(store.saver, config);
    expect(await answers(), "after a reindex").toEqual(expected);
  });
});

describe("search over edited messages (a graph's BaseStore, no checkpointer)", () => {
  it("finds a message by its newest version's words only", async () => {
    const store = await createIndexedBaseStore(THREAD, WRITES[0]!);
    await baseStoreRecallFor(store).record({ threadId: THREAD, add: WRITES[1]! });
    expect(await searchHistory(undefined, config, "Paris", { store })).toEqual([]);
    const [newest] = await searchHistory(undefined, config, "Rome", { store });
    expect(newest).toMatchObject({ messageId: "meeting", text: recallText(after) });
  });
});
