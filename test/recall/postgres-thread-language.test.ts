/**
 * A thread's Postgres index holds its rows in one text search configuration, the one recorded with the thread, and a
 * search parses the query with it. A later write by a runtime configured otherwise — a prune or a script run without
 * `--language` (default "simple") on a thread an application indexed in "english" — writes in the thread's
 * configuration and leaves it recorded; a reindex in another language (`reindexThread`, which rewrites the thread's
 * rows with `replaceThread`) is how a thread changes it.
 */
import type { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { searchHistory } from "../../src/recall/search.js";
import { threadStoreFor } from "../../src/store/thread-store.js";
import type { RecallEntry } from "../../src/store/recall-index/types.js";
import { createStore, type TestStore } from "../support/savers.js";

const THREAD = "stemmed";
const config = { configurable: { thread_id: THREAD } };

const entry = (ordinal: number, text: string): RecallEntry => ({
  messageId: `m${ordinal}`,
  role: ordinal % 2 === 0 ? "user" : "assistant",
  checkpointId: "1f0-a",
  ordinal,
  text,
});

describe("a thread's text search configuration on Postgres", () => {
  let store: TestStore;
  beforeAll(async () => void (store = await createStore("postgres")));
  afterAll(async () => store?.close());

  const recorded = async () =>
    (
      await (store.saver as PostgresSaver)["pool"].query(
        `SELECT language::text AS language FROM ${store.location.schema!}.compaction_recall_threads WHERE thread_id = $1`,
        [THREAD],
      )
    ).rows[0]?.language as string | undefined;

  it("stays the one its rows were written in when a writer configured otherwise adds rows", async () => {
    const english = threadStoreFor(store.saver, { recallLanguage: "english" }).recall;
    await english.record({ threadId: THREAD, add: [entry(0, "The painters were painting the Lisbon office.")] });
    expect(await recorded()).toBe("english");

    // A writer with the default configuration ("simple"), as a prune or the script without --language writes.
    const simple = threadStoreFor(store.saver).recall;
    await simple.record({ threadId: THREAD, add: [entry(1, "Which painting crew? The Porto painters are booked.")] });
    expect(await recorded()).toBe("english");

    // Stemmed as the thread is: "paint" finds both rows, the old one and the one added by the other writer.
    const hits = await searchHistory(store.saver, config, "paint", { limit: 5, neighbours: 0 });
    expect(hits.map((hit) => hit.messageId).sort()).toEqual(["m0", "m1"]);
  });

  it("changes only by a reindex in another language", async () => {
    const simple = threadStoreFor(store.saver).recall;
    await simple.replaceThread(THREAD, await simple.entries(THREAD));
    expect(await recorded()).toBe("simple");
    // Unstemmed now: "paint" is no word of either message; "painting" is.
    expect(await searchHistory(store.saver, config, "paint", { limit: 5, neighbours: 0 })).toEqual([]);
    const hits = await searchHistory(store.saver, config, "painting", { limit: 5, neighbours: 0 });
    expect(hits.map((hit) => hit.messageId).sort()).toEqual(["m0", "m1"]);
  });
});
