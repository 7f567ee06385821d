/**
 * searchHistory's filters (speaker, from, to) on every recall backend — MemorySaver, a SQLite file, a real Postgres
 * and a graph's BaseStore: one rule (store/recall-index/filter.ts) gives the same answer everywhere; a filter narrows
 * the ranking itself (a message ranked below the page without it is found with it); bad values are typed errors
 * naming the option.
 */
import { afterEach, describe, expect, it } from "vitest";
import { CompactionError } from "../../src/errors.js";
import { searchHistory, type SearchHistoryOptions } from "../../src/recall/search.js";
import { createHistorySearchTool, NEXT_SEARCH_HINT } from "../../src/recall/tool.js";
import { passesFilter, resolveRecallFilter } from "../../src/store/recall-index/filter.js";
import type { RecallEntry } from "../../src/store/recall-index/types.js";
import { createIndexedBaseStore, createIndexedStore } from "../support/indexed-store.js";
import { createStore, SAVER_KINDS, type TestStore } from "../support/savers.js";

const THREAD = "filters";
const config = { configurable: { thread_id: THREAD } };
const day = (d: string) => `${d}T09:30:00.000Z`;

/** Bob says "invoice" often and briefly; Alice once, in a long message; a user without a name; Alice undated. */
const ENTRIES: RecallEntry[] = [
  ...[1, 2, 3, 4, 5, 6].map((n, ordinal) => ({
    messageId: `bob-${n}`,
    role: "assistant" as const,
    name: "Bob",
    date: day(`2023-06-0${n}`),
    checkpointId: "c1",
    ordinal,
    text: `Invoice ${n}: invoice checked, invoice filed.`,
  })),
  {
    messageId: "alice-1",
    role: "user",
    name: "Alice",
    date: day("2023-06-10"),
    checkpointId: "c1",
    ordinal: 6,
    text: "After the long weekend at the lake with the kids and the dog, and the drive back through the hills, I finally found the supplier's invoice in the glovebox.",
  },
  {
    messageId: "user-1",
    role: "user",
    date: day("2023-07-01"),
    checkpointId: "c1",
    ordinal: 7,
    text: "Where is the invoice for the July order?",
  },
  {
    messageId: "alice-undated",
    role: "user",
    name: "Alice",
    checkpointId: "c1",
    ordinal: 8,
    text: "The invoice template needs our new address.",
  },
];

const ids = async (
  search: (options: SearchHistoryOptions) => Promise<Array<{ messageId: string }>>,
  options: SearchHistoryOptions,
) => (await search(options)).map((hit) => hit.messageId).sort();

async function expectInvalid(promise: Promise<unknown>, parameter: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(CompactionError.isInstance(error)).toBe(true);
  expect((error as CompactionError).code).toBe("INVALID_ARGUMENT");
  expect((error as CompactionError).parameter).toBe(parameter);
}

async function suite(search: (options: SearchHistoryOptions) => Promise<Array<{ messageId: string }>>): Promise<void> {
  expect(await ids(search, { speaker: "ALICE" })).toEqual(["alice-1", "alice-undated"]);
  expect(await ids(search, { speaker: " alice " })).toEqual(["alice-1", "alice-undated"]);
  // A message without a name is its role's.
  expect(await ids(search, { speaker: "user" })).toEqual(["user-1"]);
  expect(await ids(search, { speaker: "nobody" })).toEqual([]);
  // Days are inclusive at both ends; an undated message is outside every range.
  expect(await ids(search, { from: "2023-06-10", to: "2023-06-10" })).toEqual(["alice-1"]);
  expect(await ids(search, { speaker: "Bob", from: "2023-06-05" })).toEqual(["bob-5", "bob-6"]);
  expect(await ids(search, { to: new Date("2023-06-02T12:00:00Z"), limit: 10 })).toEqual(["bob-1", "bob-2"]);
  expect(await ids(search, { from: "2023-06-30T00:00:00Z" })).toEqual(["user-1"]);
}

describe.each(SAVER_KINDS)("searchHistory filters (%s)", (kind) => {
  let store: TestStore;
  afterEach(async () => store?.close());

  it("narrow the ranking to one speaker and a date range, the same on every backend", async () => {
    store = await createIndexedStore(kind, THREAD, ENTRIES);
    // Without a filter the page is Bob's: Alice's one mention ranks below it.
    expect((await searchHistory(store.saver, config, "invoice")).map((hit) => hit.messageId)).not.toContain("alice-1");
    await suite((options) => searchHistory(store.saver, config, "invoice", options));
  });

  it("name the option and its value when it is wrong", async () => {
    store = await createStore(kind);
    await expectInvalid(searchHistory(store.saver, config, "invoice", { speaker: "  " }), "speaker");
    await expectInvalid(searchHistory(store.saver, config, "invoice", { from: "last June" }), "from");
    await expectInvalid(searchHistory(store.saver, config, "invoice", { to: "2023-13-45" }), "to");
    await expectInvalid(searchHistory(store.saver, config, "invoice", { from: "2023-06-10", to: "2023-06-01" }), "to");
  });
});

describe("searchHistory filters (a graph's BaseStore, no checkpointer)", () => {
  it("give the same answers", async () => {
    const store = await createIndexedBaseStore(THREAD, ENTRIES);
    expect((await searchHistory(undefined, config, "invoice", { store })).map((hit) => hit.messageId)).not.toContain(
      "alice-1",
    );
    await suite((options) => searchHistory(undefined, config, "invoice", { store, ...options }));
  });
});

describe("the search_history tool's filters", () => {
  let store: TestStore;
  afterEach(async () => store?.close());

  it("passes speaker, from and to through, says to widen an empty filtered search, and answers a bad date instead of throwing", async () => {
    store = await createIndexedStore("sqlite", THREAD, ENTRIES);
    const searchTool = createHistorySearchTool({ checkpointer: store.saver });
    const ask = async (args: Record<string, unknown>) =>
      String(await searchTool.invoke(args as { query: string }, config));
    const alice = await ask({ query: "invoice", speaker: "Alice" });
    expect(alice).toContain("supplier's invoice");
    expect(alice).not.toMatch(/^\d+\. .*Bob/m);
    expect(alice.trimEnd().endsWith(NEXT_SEARCH_HINT)).toBe(true);
    // Fields a model fills with null or "" are no filter.
    expect(await ask({ query: "invoice", speaker: null, from: "", to: null })).toBe(await ask({ query: "invoice" }));
    expect(await ask({ query: "invoice", speaker: "Nobody" })).toMatch(
      /^No earlier message matches with that speaker or date range/,
    );
    expect(await ask({ query: "invoice", from: "last June" })).toMatch(/^The search could not use that filter: from /);
  });
});

describe("resolveRecallFilter and passesFilter", () => {
  it("resolve nothing to no filter, a day as `to` to its last millisecond, and judge a message as the SQL does", () => {
    expect(resolveRecallFilter({})).toBeUndefined();
    expect(resolveRecallFilter({ to: "2023-06-10" })).toEqual({ to: "2023-06-10T23:59:59.999Z" });
    expect(resolveRecallFilter({ from: "2023-06-10", speaker: "Bob" })).toEqual({
      from: "2023-06-10T00:00:00.000Z",
      speaker: "bob",
    });
    const filter = resolveRecallFilter({ speaker: "assistant", from: "2023-06-01" });
    expect(passesFilter({ role: "assistant", date: day("2023-06-01") }, filter)).toBe(true);
    expect(passesFilter({ role: "assistant", name: "Bob", date: day("2023-06-01") }, filter)).toBe(false);
    expect(passesFilter({ role: "assistant" }, filter)).toBe(false);
    expect(passesFilter({ role: "assistant", date: "not a date" }, filter)).toBe(false);
    expect(passesFilter({ role: "tool" }, undefined)).toBe(true);
  });
});
