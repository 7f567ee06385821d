/**
 * Postgres ranks by BM25, whose length term is each row's distinct body words. The row stores it when written
 * (`body_length`), so a search does not compute it for every row that holds a query word; the stored length is the
 * one a search would compute, and rows written before it was stored (NULL) rank exactly as they would with it.
 */
import type { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { searchHistory } from "../../src/recall/search.js";
import { threadStoreFor } from "../../src/store/thread-store.js";
import type { RecallEntry } from "../../src/store/recall-index/types.js";
import { createStore, type TestStore } from "../support/savers.js";

const THREAD = "lengths";
const config = { configurable: { thread_id: THREAD } };

/** Messages of different lengths that share words, each with the one before as its context. */
const TEXTS = [
  "The invoice for the Lisbon office is due on Friday.",
  "Which invoice? We have three open for Lisbon, one for Porto and one for the Madrid office, all due this month.",
  "The Lisbon one, for the printers.",
  "Paid. The printers invoice for Lisbon came to 1,240 EUR; Porto and Madrid wait for the quarter's end, as agreed with finance last week.",
  "And the refund cap for Lisbon?",
  "Still 500 EUR per claim.",
];
const ENTRIES: RecallEntry[] = TEXTS.map((text, ordinal) => ({
  messageId: `m${ordinal}`,
  role: ordinal % 2 === 0 ? "user" : "assistant",
  checkpointId: "1f0-a",
  ordinal,
  text,
  ...(ordinal > 0 ? { context: TEXTS[ordinal - 1] } : {}),
}));

describe("the Postgres index's stored body length", () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await createStore("postgres");
    await threadStoreFor(store.saver).recall.record({ threadId: THREAD, add: ENTRIES });
  });
  afterAll(async () => store?.close());

  const query = (sql: string) =>
    (store.saver as PostgresSaver)["pool"].query(sql.replaceAll("$schema", store.location.schema!));

  it("is the length a search would compute, and rows without it rank the same", async () => {
    const differing = await query(
      `SELECT count(*)::int AS n FROM $schema.compaction_recall WHERE body_length IS DISTINCT FROM length(ts_filter(document, '{d}'))`,
    );
    expect(differing.rows[0]).toEqual({ n: 0 });
    const lengths = await query(`SELECT count(DISTINCT body_length)::int AS n FROM $schema.compaction_recall`);
    expect(lengths.rows[0]!.n).toBeGreaterThan(1);
    const ranked = async () =>
      (await searchHistory(store.saver, config, "Lisbon invoice printers", { limit: 6 })).map((hit) => [
        hit.messageId,
        hit.score,
      ]);
    const stored = await ranked();
    expect(stored.length).toBeGreaterThan(2);
    await query(`UPDATE $schema.compaction_recall SET body_length = NULL`);
    expect(await ranked()).toEqual(stored);
  });
});
