/**
 * A message edited under its id (`updateState`, an `Overwrite`) has several versions in the transcript, and search
 * finds it by any of them: a word only its older version held finds it, shown as that version (`version`, and
 * "before an edit" in the tool's answer and the script's). An older version stays findable while the head holds the
 * newest one; a version the head holds is not a hit. The same on every recall backend.
 */
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { MessagesAnnotation, StateGraph, START } from "@langchain/langgraph";
import type { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import type { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { recallText } from "../../src/messages/message-shape.js";
import { createHistorySearchTool } from "../../src/recall/tool.js";
import { searchLines } from "../../src/cli/search-output.js";
import { recallBackendFor, searchHistory } from "../../src/recall/search.js";
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

/** A thread whose head holds `messages`. */
async function headOf(store: TestStore, messages: BaseMessage[]): Promise<void> {
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("noop", () => ({}))
    .addEdge(START, "noop")
    .compile({ checkpointer: store.saver });
  await graph.invoke({ messages }, config);
}

describe.each(SAVER_KINDS)("search over edited messages (%s)", (kind) => {
  let store: TestStore;
  afterEach(async () => store?.close());

  it("finds a message by a word of its older version, shown as that version", async () => {
    store = await createStore(kind);
    for (const add of WRITES) await recallBackendFor(store.saver).record({ threadId: THREAD, add });
    const [old] = await searchHistory(store.saver, config, "Paris river");
    expect(old).toMatchObject({ messageId: "meeting", text: recallText(before), version: "1f0-a" });
    const [newest] = await searchHistory(store.saver, config, "Rome");
    expect(newest).toMatchObject({ messageId: "meeting", text: recallText(after) });
    expect(newest!.version).toBeUndefined();
    // The tool says which version the model reads.
    const tool = createHistorySearchTool({ checkpointer: store.saver });
    const answer = String(await tool.invoke({ query: "Paris" }, config));
    expect(answer).toContain("user (before an edit): Let us meet in Paris");
    // And the script's search.
    expect(searchLines([old!], "Paris").join("\n")).toContain("before an edit (as held in 1f0-a)");
  });

  it("finds the older version while the head holds the newest, and nothing the head holds", async () => {
    store = await createStore(kind);
    for (const add of WRITES) await recallBackendFor(store.saver).record({ threadId: THREAD, add });
    await headOf(store, [after, other]);
    const hits = await searchHistory(store.saver, config, "Paris");
    expect(hits.map((hit) => [hit.messageId, hit.text, hit.version])).toEqual([
      ["meeting", recallText(before), "1f0-a"],
    ]);
    expect(await searchHistory(store.saver, config, "Rome")).toEqual([]);
    expect(await searchHistory(store.saver, config, "drawings bridge")).toEqual([]);
  });
});

describe.each(["sqlite", "postgres"] as const)("search in an index written before versions were kept (%s)", (kind) => {
  let store: TestStore;
  afterEach(async () => store?.close());

  it("answers from the text its rows hold", async () => {
    store = await createStore(kind);
    await recallBackendFor(store.saver).record({ threadId: THREAD, add: [entry(before, "1f0-a", 0)] });
    if (kind === "sqlite") (store.saver as SqliteSaver).db.exec("ALTER TABLE compaction_recall DROP COLUMN versions");
    else {
      const schema = store.location.schema!;
      await (store.saver as PostgresSaver)["pool"].query(
        `ALTER TABLE ${schema}.compaction_recall DROP COLUMN versions`,
      );
    }
    // A process that opens the store now (this one created the column).
    const [hit] = await searchHistory(await store.reopen(), config, "Paris");
    expect(hit).toMatchObject({ messageId: "meeting", text: recallText(before) });
  });
});

describe("search over edited messages (a graph's BaseStore, no checkpointer)", () => {
  it("finds a message by a word of its older version", async () => {
    const store = await createIndexedBaseStore(THREAD, WRITES[0]!);
    await baseStoreRecallFor(store).record({ threadId: THREAD, add: WRITES[1]! });
    const [old] = await searchHistory(undefined, config, "Paris", { store });
    expect(old).toMatchObject({ messageId: "meeting", text: recallText(before), version: "1f0-a" });
  });
});
