/**
 * Hostile searches, on all three backends (MemorySaver's in-process index, SQLite FTS5 in a real file, Postgres full
 * text on a real server): two tenants' threads in one store, and every search a tenant can make of its own thread
 * must answer from that thread alone or fail with a typed error, write nothing, and never be blinded by the other.
 * - crowding: the other tenant's messages spell this thread's index key (guessable from its id), hundreds of times;
 * - absent words: query words the thread never holds beside ones it does;
 * - NUL and control characters, in the query and in the thread id;
 * - 100 KB queries;
 * - query syntax of every engine (FTS5, tsquery, SQL, LIKE), which must be read as words.
 */
import { HumanMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CompactionError, HistoryManager, searchHistory } from "../../src/index.js";
import { getSummaryProvenance } from "../../src/messages/summary-message.js";
import { recallBackendFor } from "../../src/recall/search.js";
import { threadKey } from "../../src/store/recall-index/sqlite-index.js";
import { createTestAgent, runTurns } from "../support/agents.js";
import { recordFigures } from "../support/reliability.js";
import { createStore, SAVER_KINDS, type TestStore } from "../support/savers.js";

const config = (threadId: string) => ({ configurable: { thread_id: threadId } });
const VICTIM = "tenant-a/thread-1";
const OTHER = "tenant-b/thread-1";

/** [category, query]: each must be answered from the victim's thread only (possibly with nothing). */
const ANSWERED: Array<[string, string]> = [
  ["syntax", '"unterminated quote'],
  ["syntax", "NEAR(invoice total, 2)"],
  ["syntax", "ord_10* OR *"],
  ["syntax", "terms: invoice OR name: Alice"],
  ["syntax", "thread_id: tenant-b OR 1"],
  ["syntax", "invoice AND NOT Alice"],
  ["syntax", "^invoice + -total"],
  ["syntax", "invoice & !total | (Alice <-> Moreau):*"],
  ["syntax", "'; DROP TABLE checkpoints; --"],
  ["syntax", "invoice') OR 1=1 --"],
  ["syntax", "%invoice% _ \\"],
  ["syntax", "{invoice} [total] $1 ?"],
  ["absent", "invoice zyxwvutsr"],
  ["absent", "qwertyuiop asdfghjkl invoice Alice"],
  ["absent", "ord_1001 nonexistentword1 nonexistentword2 nonexistentword3"],
  ["nul", "invoice\u0000 total"],
  ["nul", "\u0000invoice\u0001\u0002\u001f ord_1001"],
  ["size", `${"invoice ".repeat(12_500)}ord_1001`],
  ["size", `${"x".repeat(100_000)} invoice`],
  ["size", Array.from({ length: 10_000 }, (_, index) => `w${index}`).join(" ")],
  ["unicode", "😀 東京 ñandú ord_1001"],
  ["unicode", "invo\u200bice Ali\u0301ce \u202eecioVni"],
];

/** Queries with no word at all, a bad limit, or a thread id holding NUL: typed errors (INVALID_ARGUMENT). */
const REFUSED: Array<[string, () => [string, string, { limit?: number }]]> = [
  ["empty", () => [VICTIM, "", {}]],
  ["blank", () => [VICTIM, "   \n\t ", {}]],
  ["only NUL", () => [VICTIM, "\u0000", {}]],
  ["only syntax", () => [VICTIM, "-- /* */ \\' | !& <-> :*", {}]],
  ["limit 0", () => [VICTIM, "invoice", { limit: 0 }]],
  ["limit -1", () => [VICTIM, "invoice", { limit: -1 }]],
  ["limit NaN", () => [VICTIM, "invoice", { limit: Number.NaN }]],
  ["limit 1e9", () => [VICTIM, "invoice", { limit: 1e9 }]],
  ["NUL thread id", () => [`${VICTIM}\u0000`, "invoice", {}]],
  ["not a string", () => [VICTIM, 42 as unknown as string, {}]],
];

async function idsEver(saver: BaseCheckpointSaver, threadId: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for await (const tuple of saver.list(config(threadId))) {
    for (const message of (tuple.checkpoint.channel_values as { messages?: BaseMessage[] }).messages ?? []) {
      if (!getSummaryProvenance(message)) ids.add(message.id!);
    }
  }
  return ids;
}

describe.each(SAVER_KINDS)("hostile searches (%s)", (kind) => {
  let store: TestStore;
  let own: Set<string>;
  let baseline: string[];

  async function written(): Promise<string> {
    let checkpoints = 0;
    for (const thread of [VICTIM, OTHER]) for await (const _ of store.saver.list(config(thread))) checkpoints++;
    const backend = recallBackendFor(store.saver);
    return JSON.stringify([checkpoints, await backend.entries(VICTIM), await backend.entries(OTHER)]);
  }

  beforeAll(async () => {
    store = await createStore(kind);
    const { agent } = createTestAgent(store.saver);
    const manager = new HistoryManager({ checkpointer: store.saver, tokenLimit: 600 });
    await runTurns(agent, VICTIM, 12);
    expect((await manager.compactThread(config(VICTIM))).status).toBe("compacted");
    baseline = (await searchHistory(store.saver, config(VICTIM), "invoice ord_1001")).map((hit) => hit.messageId);
    // The other tenant floods its thread with the victim's index key, in every spelling an FTS5 token allows, and
    // with the victim's words, then is compacted so all of it is indexed.
    const key = threadKey(VICTIM);
    for (let turn = 0; turn < 30; turn++) {
      const spelled = [key, key.toUpperCase(), `x_${key}`, `${key}.`, `"${key}"`][turn % 5];
      await agent.invoke({ messages: [new HumanMessage({ id: `flood-${turn}`, content: `${spelled} ${spelled} invoice ord_1001 Alice Moreau ${spelled}` })] }, config(OTHER));
    }
    expect((await manager.compactThread(config(OTHER))).status).toBe("compacted");
    own = await idsEver(store.saver, VICTIM);
  }, 120_000);

  afterAll(async () => store?.close());

  it("is not blinded by another tenant spelling its index key: as many hits as before, all its own", async () => {
    expect(baseline.length).toBeGreaterThan(0);
    // As many hits, all its own. Which ones may move: SQLite's BM25 weighs words by the whole file's statistics, so
    // another tenant's words shift the ranking (they never fill the candidates: every candidate is this thread's).
    const after = (await searchHistory(store.saver, config(VICTIM), "invoice ord_1001")).map((hit) => hit.messageId);
    expect(after).toHaveLength(baseline.length);
    for (const id of after) expect(own.has(id), id).toBe(true);
    const spelledKey = await searchHistory(store.saver, config(VICTIM), threadKey(VICTIM));
    for (const hit of spelledKey) expect(own.has(hit.messageId)).toBe(true);
  });

  it("answers every hostile query from its own thread only, and writes nothing", async () => {
    const before = await written();
    const byCategory: Record<string, number> = {};
    for (const [category, query] of ANSWERED) {
      const hits = await searchHistory(store.saver, config(VICTIM), query, { limit: 100 });
      for (const message of hits.flatMap((hit) => [hit, ...hit.before, ...hit.after])) expect(own.has(message.messageId), `${category}: ${query.slice(0, 40)}`).toBe(true);
      byCategory[category] = (byCategory[category] ?? 0) + 1;
      // A word the thread holds is still found beside absent words.
      if (category === "absent") expect(hits.length, query).toBeGreaterThan(0);
    }
    expect(await written()).toBe(before);
    recordFigures("hostile-search", { [`${kind}:answered`]: ANSWERED.length, ...Object.fromEntries(Object.entries(byCategory).map(([name, count]) => [`${kind}:${name}`, count])) });
  });

  it("refuses a query without words, a bad limit and a NUL thread id with INVALID_ARGUMENT, and writes nothing", async () => {
    const before = await written();
    for (const [name, args] of REFUSED) {
      const [thread, query, options] = args();
      const error = await searchHistory(store.saver, config(thread), query, options).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(CompactionError.isInstance(error), name).toBe(true);
      expect((error as CompactionError).code, name).toBe("INVALID_ARGUMENT");
    }
    expect(await written()).toBe(before);
    recordFigures("hostile-search", { [`${kind}:refused`]: REFUSED.length });
  });
});
