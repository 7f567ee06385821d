/**
 * A search ranks by what a question asks about, not by its grammar: the query's function words ("what", "did", "you")
 * are left out (store/recall-index/function-words.ts) on every backend — MemorySaver, a SQLite file, a real Postgres
 * and a graph's BaseStore — unless the query holds nothing else.
 */
import { afterEach, describe, expect, it } from "vitest";
import { searchHistory } from "../../src/recall/search.js";
import { FUNCTION_WORDS, withoutFunctionWords } from "../../src/store/recall-index/function-words.js";
import { queryTerms, searchTerms } from "../../src/store/recall-index/query.js";
import type { RecallEntry } from "../../src/store/recall-index/types.js";
import { createIndexedBaseStore, createIndexedStore } from "../support/indexed-store.js";
import { SAVER_KINDS, type TestStore } from "../support/savers.js";

const THREAD = "function-words";
const config = { configurable: { thread_id: THREAD } };

/** Three questions full of grammar, one answer about painting, and messages about other things. */
const TEXTS: Array<[string, string]> = [
  ["ask-1", "What did you do today? What did you think of it?"],
  ["ask-2", "What did you say to them, and what did you hear back?"],
  ["ask-3", "What did you want to do first?"],
  ["answer", "I paint lakes at sunrise on Sundays."],
  ["lunch", "Lunch was soup and bread."],
  ["train", "The train left late again."],
  ["garden", "Tomatoes grow well in the garden."],
  ["book", "Reading a novel about sailors."],
];
const ENTRIES: RecallEntry[] = TEXTS.map(([messageId, text], ordinal) => ({
  messageId,
  role: "user",
  checkpointId: "c1",
  ordinal,
  text,
}));

describe("searchTerms", () => {
  it("leaves the function words out of a query, keeps names and the words of its topic, and keeps a query of nothing else whole", () => {
    expect(searchTerms("What has Melanie painted?")).toEqual(["melanie", "painted"]);
    expect(searchTerms("When did Caroline go to the LGBTQ support group?")).toEqual([
      "caroline",
      "go",
      "lgbtq",
      "support",
      "group",
    ]);
    // Words that are also nouns or names stay.
    expect(searchTerms("Who won the race, and will Don come?")).toEqual(["won", "race", "will", "don", "come"]);
    expect(searchTerms("what is it")).toEqual(queryTerms("what is it"));
    expect(withoutFunctionWords(["the", "a"])).toEqual(["the", "a"]);
    expect(
      [...FUNCTION_WORDS].every((word) => word === word.toLowerCase() && word.trim() === word && word !== ""),
    ).toBe(true);
  });
});

describe.each(SAVER_KINDS)("a search ranks by what the question asks about (%s)", (kind) => {
  let store: TestStore;
  afterEach(async () => store?.close());

  it("finds the answer first, where the query's grammar would rank the questions first", async () => {
    store = await createIndexedStore(kind, THREAD, ENTRIES);
    expect(
      (await searchHistory(store.saver, config, "What did you paint?", { limit: 1 })).map((hit) => hit.messageId),
    ).toEqual(["answer"]);
    // A query of nothing but function words is searched as written.
    expect(
      (await searchHistory(store.saver, config, "what did you", { limit: 3 })).map((hit) => hit.messageId).sort(),
    ).toEqual(["ask-1", "ask-2", "ask-3"]);
  });
});

describe("a search ranks by what the question asks about (a graph's BaseStore, no checkpointer)", () => {
  it("finds the answer first", async () => {
    const store = await createIndexedBaseStore(THREAD, ENTRIES);
    expect(
      (await searchHistory(undefined, config, "What did you paint?", { store, limit: 1 })).map((hit) => hit.messageId),
    ).toEqual(["answer"]);
  });
});
