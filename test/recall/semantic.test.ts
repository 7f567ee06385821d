/**
 * The optional semantic ranking of searchHistory, with a deterministic fake Embeddings (test/support/fakes), on
 * MemorySaver, a SQLite file and a real Postgres: a compacted message that says the query in other words is found,
 * which full-text search alone misses; each message is embedded once per model (its vector kept beside the index,
 * read back by another connection); another thread's messages are never compared; a failing model is a typed error.
 */
import { HumanMessage } from "@langchain/core/messages";
import { InMemoryStore } from "@langchain/langgraph-checkpoint";
import { baseStoreRecallFor } from "../../src/store/recall-index/base-store-index.js";
import { afterEach, describe, expect, it } from "vitest";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { searchHistory } from "../../src/recall/search.js";
import { threadStoreFor } from "../../src/store/thread-store.js";
import { reciprocalRankFusion } from "../../src/recall/semantic.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import { createTestAgent } from "../support/agents.js";
import { ConceptEmbeddings } from "../support/fakes/concept-embeddings.js";
import { createStore, SAVER_KINDS, type TestStore } from "../support/savers.js";
import { entriesOutOfHead } from "../support/recall-view.js";
import { searchOf } from "../../src/store/recall-index/search-of.js";

const config = (threadId: string) => ({ configurable: { thread_id: threadId } });
const VEHICLES = ["car", "automobile", "sedan", "vehicle"];

const SAID = [
  "My sedan broke down on the ring road this morning, the garage in Lyon has it now.",
  "The invoice for order ord_77 came to 420 EUR and Priya approved it.",
  "Please book the meeting room on the third floor for Thursday at ten.",
  "The quarterly report needs the churn figures from the analytics team.",
  "Remind me to renew the domain name before the end of the month.",
  "The new intern starts on Monday and needs a laptop and a badge.",
  "Our supplier in Porto raised the price of cardboard boxes by eight percent.",
  "The backup job failed twice last week because the disk was full.",
  "Send the contract draft to the legal team for review by Friday.",
  "The office plants need watering while Sam is on holiday.",
];

describe.each(SAVER_KINDS)("semantic ranking (%s)", (kind) => {
  let store: TestStore;
  afterEach(async () => store?.close());

  async function compactedThread(threadId: string, said = SAID) {
    const { agent } = createTestAgent(store.saver, () => ({ content: "Noted." }));
    for (const [index, text] of said.entries())
      await agent.invoke(
        { messages: [new HumanMessage({ id: `${threadId}-${index}`, content: text })] },
        config(threadId),
      );
    const manager = new HistoryManager({
      checkpointer: store.saver,
      summarizer: new ExtractiveSummarizer(),
      trigger: { tokens: 400 },
      env: {},
    });
    expect((await manager.compactThread(config(threadId), { force: true })).status).toBe("compacted");
    return entriesOutOfHead(store.saver, threadId);
  }

  it("finds a message that says the query in other words, which full-text search misses, embedding each message once", async () => {
    store = await createStore(kind);
    const out = await compactedThread("cars");
    expect(out.map((entry) => entry.messageId)).toContain("cars-0");
    expect(await searchHistory(store.saver, config("cars"), "automobile")).toEqual([]);

    const embeddings = new ConceptEmbeddings([VEHICLES]);
    const hits = await searchHistory(store.saver, config("cars"), "automobile", { semantic: { embeddings } });
    expect(hits[0]!.messageId).toBe("cars-0");
    expect(hits[0]!.after.length).toBeGreaterThan(0);
    // Every message out of the head embedded once; a second search embeds nothing.
    expect(embeddings.embedded.length).toBe(out.length);
    await searchHistory(store.saver, config("cars"), "which vehicle broke down", { semantic: { embeddings } });
    expect(embeddings.embedded.length).toBe(out.length);
    // The vectors are in the store: another connection (a fresh process's) reads them instead of embedding again.
    const reopened = await store.reopen();
    const again = new ConceptEmbeddings([VEHICLES]);
    expect(
      (await searchHistory(reopened, config("cars"), "automobile", { semantic: { embeddings: again } }))[0]!.messageId,
    ).toBe("cars-0");
    expect(again.embedded.length).toBe(0);
    // Another model's vectors are kept apart: its name is part of their key.
    const other = new ConceptEmbeddings([VEHICLES], { model: "concepts-v2" });
    await searchHistory(store.saver, config("cars"), "automobile", { semantic: { embeddings: other } });
    expect(other.embedded.length).toBe(out.length);
  });

  it("fuses both rankings: the message both find first, and one only the vectors find among the hits", async () => {
    store = await createStore(kind);
    await compactedThread("fused", [
      "The delivery van was parked behind the warehouse all night.",
      "My sedan broke down on the ring road; the garage in Lyon has it now.",
      ...SAID.slice(1),
    ]);
    const embeddings = new ConceptEmbeddings([["car", "automobile", "sedan", "vehicle", "van"]]);
    const plain = (await searchHistory(store.saver, config("fused"), "garage sedan", { neighbours: 0 })).map(
      (hit) => hit.messageId,
    );
    expect(plain[0]).toBe("fused-1");
    expect(plain).not.toContain("fused-0");
    const fused = (
      await searchHistory(store.saver, config("fused"), "garage sedan", { semantic: { embeddings }, neighbours: 0 })
    ).map((hit) => hit.messageId);
    expect(fused[0]).toBe("fused-1");
    expect(fused).toContain("fused-0");
  });

  it("compares only the thread's own messages", async () => {
    store = await createStore(kind);
    const mine = new Set((await compactedThread("mine", SAID.slice(1))).map((entry) => entry.messageId));
    await compactedThread("theirs");
    const embeddings = new ConceptEmbeddings([VEHICLES]);
    const hits = await searchHistory(store.saver, config("mine"), "automobile", {
      semantic: { embeddings },
      limit: 100,
    });
    expect(hits.length).toBe(mine.size);
    expect(hits.every((hit) => mine.has(hit.messageId))).toBe(true);
    expect(embeddings.embedded.every((text) => !text.includes("sedan"))).toBe(true);
  });

  it("fails with EMBEDDINGS_FAILED naming the model when it throws or answers the wrong shape, and keeps no vector", async () => {
    store = await createStore(kind);
    await compactedThread("failing");
    const broken = new ConceptEmbeddings([VEHICLES], { model: "broken" });
    broken.embedDocuments = async () => Promise.reject(new Error("rate limited"));
    await expect(
      searchHistory(store.saver, config("failing"), "automobile", { semantic: { embeddings: broken } }),
    ).rejects.toMatchObject({
      code: "EMBEDDINGS_FAILED",
      message: expect.stringMatching(/"ConceptEmbeddings:broken".*rate limited/),
    });
    const short = new ConceptEmbeddings([VEHICLES], { model: "short" });
    short.embedDocuments = async (documents) => documents.slice(1).map(() => [1, 0]);
    await expect(
      searchHistory(store.saver, config("failing"), "automobile", { semantic: { embeddings: short } }),
    ).rejects.toMatchObject({ code: "EMBEDDINGS_FAILED" });
    const backend = searchOf(threadStoreFor(store.saver).recall);
    expect(await backend.vectors.read("failing", "ConceptEmbeddings:broken")).toEqual([]);
    expect(await backend.vectors.read("failing", "ConceptEmbeddings:short")).toEqual([]);
    await expect(
      searchHistory(store.saver, config("failing"), "automobile", { semantic: { embeddings: {} as never } }),
    ).rejects.toThrow(/semantic must be/);
  });
});

describe("semantic ranking (a graph's BaseStore, no checkpointer)", () => {
  it("keeps the vectors in the store beside the transcript and embeds each message once", async () => {
    const store = new InMemoryStore();
    const add = SAID.map((text, ordinal) => ({
      messageId: `store-${ordinal}`,
      role: "user" as const,
      checkpointId: "c1",
      ordinal,
      text,
    }));
    await baseStoreRecallFor(store).record({ threadId: "in-graph", add });
    const embeddings = new ConceptEmbeddings([VEHICLES]);
    const hits = await searchHistory(undefined, config("in-graph"), "automobile", { store, semantic: { embeddings } });
    expect(hits[0]!.messageId).toBe("store-0");
    expect(embeddings.embedded.length).toBe(SAID.length);
    const again = new ConceptEmbeddings([VEHICLES]);
    expect(
      (await searchHistory(undefined, config("in-graph"), "automobile", { store, semantic: { embeddings: again } }))[0]!
        .messageId,
    ).toBe("store-0");
    expect(again.embedded.length).toBe(0);
    // The transcript's own items are untouched: as many as were recorded.
    expect((await baseStoreRecallFor(store).entries("in-graph")).length).toBe(SAID.length);
  });
});

describe("reciprocalRankFusion", () => {
  it("scores each id by the sum of 1 / (60 + rank) over the lists that hold it", () => {
    const fused = reciprocalRankFusion([
      ["a", "b", "c"],
      ["b", "d"],
    ]);
    expect(fused.map((entry) => entry.id)).toEqual(["b", "a", "d", "c"]);
    expect(fused[0]!.score).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(fused[3]!.score).toBeCloseTo(1 / 63, 12);
  });
});
