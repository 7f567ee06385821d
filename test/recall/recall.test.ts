/**
 * The recall index, one behaviour suite on MemorySaver, a SQLite file and a real Postgres: a message is searchable
 * exactly when a compaction took it out of the head, only in its own thread; a compaction that loses its race or
 * whose summarizer fails indexes nothing; reindex equals live indexing; a restore takes restored messages out of the
 * index; hostile queries are words (answered or a typed error) and write nothing.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { HumanMessage, RemoveMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { afterEach, describe, expect, it } from "vitest";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { getSummaryProvenance } from "../../src/messages/summary-message.js";
import { reindexThread } from "../../src/recall/reindex.js";
import { searchHistory } from "../../src/recall/search.js";
import { threadStoreFor } from "../../src/store/thread-store.js";
import { threadKey } from "../../src/store/recall-index/sqlite-index.js";
import type { RecallEntry } from "../../src/store/recall-index/types.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import type { Summarizer } from "../../src/summarizers/types.js";
import { createTestAgent, runTurns } from "../support/agents.js";
import { createStore, SAVER_KINDS, type TestStore } from "../support/savers.js";
import { compacted } from "../support/compacted.js";
import { entriesOutOfHead } from "../support/recall-view.js";

const config = (threadId: string) => ({ configurable: { thread_id: threadId } });

async function headOf(saver: BaseCheckpointSaver, threadId: string): Promise<{ id: string; messages: BaseMessage[] }> {
  const tuple = (await saver.getTuple(config(threadId)))!;
  return {
    id: tuple.checkpoint.id,
    messages: (tuple.checkpoint.channel_values as { messages: BaseMessage[] }).messages,
  };
}

/** Every message id the thread ever held (its whole checkpoint history), summaries aside. */
async function idsEver(saver: BaseCheckpointSaver, threadId: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for await (const tuple of saver.list(config(threadId))) {
    for (const message of (tuple.checkpoint.channel_values as { messages?: BaseMessage[] }).messages ?? []) {
      if (!getSummaryProvenance(message)) ids.add(message.id!);
    }
  }
  return ids;
}

const byId = (entries: RecallEntry[]) => [...entries].sort((a, b) => a.messageId.localeCompare(b.messageId));

describe.each(SAVER_KINDS)("recall index (%s)", (kind) => {
  let store: TestStore;
  afterEach(async () => store?.close());

  async function setup() {
    store = await createStore(kind);
    const { agent } = createTestAgent(store.saver);
    const manager = new HistoryManager({
      checkpointer: store.saver,
      summarizer: new ExtractiveSummarizer(),
      recall: { announce: true },
    });
    return { saver: store.saver, agent, manager };
  }

  it("finds nothing before a compaction, then the compacted messages word for word, where they still are", async () => {
    const { saver, agent, manager } = await setup();
    await runTurns(agent, "a", 9);
    expect(await searchHistory(saver, config("a"), "invoice total ord_1001")).toEqual([]);
    const before = await headOf(saver, "a");

    const report = await manager.compactThread(config("a"), { compactionRatio: 0.5 });
    expect(report.status).toBe("compacted");
    const head = await headOf(saver, "a");
    const inHead = new Set(head.messages.map((message) => message.id));
    const hits = await searchHistory(saver, config("a"), "what was the invoice total for order ord_1001?");
    expect(hits.length).toBeGreaterThan(0);
    const best = hits.find((hit) => hit.messageId === "turn-a-1");
    expect(best, JSON.stringify(hits.map((hit) => hit.messageId))).toBeDefined();
    expect(best!.text).toBe("turn 1: the invoice total for order ord_1001 is 17 EUR, decided by Alice Moreau.");
    expect(best!.role).toBe("user");
    expect(best!.checkpointId).toBe(before.id);
    expect(inHead.has(best!.messageId)).toBe(false);
    // The hit carries the messages around it, as they were in that checkpoint.
    const ordinal = before.messages.findIndex((message) => message.id === best!.messageId);
    expect(best!.after[0]?.messageId).toBe(before.messages[ordinal + 1]!.id);
    // Every indexed message left the head; every message that left it is indexed.
    const entries = await threadStoreFor(saver).recall.entries("a");
    const left = before.messages.filter((message) => !inHead.has(message.id));
    expect(byId(entries).map((entry) => entry.messageId)).toEqual(left.map((message) => message.id!).sort());
    // The summary tells the model the tool exists (announce: the agents have it).
    expect(String(head.messages.find((message) => message.id === compacted(report).summaryId)?.content)).toContain(
      "search_history",
    );
  });

  it("never returns another thread's messages, whatever the words", async () => {
    const { saver, agent, manager } = await setup();
    for (const thread of ["a", "b"]) await runTurns(agent, thread, 9);
    await runTurns(agent, "c", 9);
    for (const thread of ["a", "b"])
      expect((await manager.compactThread(config(thread), { compactionRatio: 0.5 })).status).toBe("compacted");
    for (const thread of ["a", "b"]) {
      const own = await idsEver(saver, thread);
      const hits = await searchHistory(saver, config(thread), "invoice total ord_1001 Alice Moreau", {
        limit: 100,
        neighbours: 5,
      });
      expect(hits.length).toBeGreaterThan(0);
      expect(hits.some((hit) => hit.messageId === `turn-${thread}-1`)).toBe(true);
      for (const message of hits.flatMap((hit) => [hit, ...hit.before, ...hit.after]))
        expect(own.has(message.messageId)).toBe(true);
    }
    // Same words, never compacted: nothing; a thread id that tries to widen the scope: nothing.
    expect(await searchHistory(saver, config("c"), "invoice total ord_1001")).toEqual([]);
    for (const thread of ["a' OR '1'='1", 'a" OR thread_id', "%", "*"])
      expect(await searchHistory(saver, config(thread), "invoice ord_1001")).toEqual([]);
  });

  it("cannot be blinded by another thread whose messages spell this thread's index key", async () => {
    const { saver, agent, manager } = await setup();
    await runTurns(agent, "victim", 9);
    expect((await manager.compactThread(config("victim"), { compactionRatio: 0.5 })).status).toBe("compacted");
    const before = (await searchHistory(saver, config("victim"), "invoice ord_1001")).map((hit) => hit.messageId);
    expect(before.length).toBeGreaterThan(0);
    // Another tenant floods its own thread with the victim's key (in every case and spacing an FTS5 token allows).
    const key = threadKey("victim");
    for (let turn = 0; turn < 40; turn++) {
      const spelled = [key, key.toUpperCase(), `x_${key}`, `${key}.`][turn % 4];
      await agent.invoke(
        {
          messages: [
            new HumanMessage({ id: `flood-${turn}`, content: `${spelled} ${spelled} invoice ord_1001 invoice` }),
          ],
        },
        config("attacker"),
      );
    }
    expect((await manager.compactThread(config("attacker"), { compactionRatio: 0.5 })).status).toBe("compacted");
    // As many hits, all the victim's (which ones may move: the other thread's words change the store's statistics).
    const after = (await searchHistory(saver, config("victim"), "invoice ord_1001")).map((hit) => hit.messageId);
    expect(after.length).toBe(before.length);
    const own = await idsEver(saver, "victim");
    for (const id of after) expect(own.has(id), id).toBe(true);
  });

  it("a query word the thread never holds does not displace the words it does hold", async () => {
    const { saver, agent, manager } = await setup();
    await runTurns(agent, "absent", 9);
    expect((await manager.compactThread(config("absent"), { compactionRatio: 0.5 })).status).toBe("compacted");
    const alone = await searchHistory(saver, config("absent"), "invoice", { limit: 100 });
    expect(alone.length).toBeGreaterThan(0);
    for (const query of ["invoice Zyxwvutsr", "Zyxwvutsr invoice qqqqjjjj"]) {
      const hits = await searchHistory(saver, config("absent"), query, { limit: 100 });
      expect(hits.map((hit) => hit.messageId).sort(), query).toEqual(alone.map((hit) => hit.messageId).sort());
    }
    expect(await searchHistory(saver, config("absent"), "Zyxwvutsr")).toEqual([]);
  });

  it("indexes nothing when the summarizer fails or the compaction loses its race", async () => {
    const { saver, agent } = await setup();
    await runTurns(agent, "a", 9);
    const failing: Summarizer = { name: "failing", summarize: async () => Promise.reject(new Error("provider down")) };
    const broken = new HistoryManager({ checkpointer: saver, summarizer: failing });
    await expect(broken.compactThread(config("a"), { compactionRatio: 0.5 })).rejects.toThrow(/provider down/);
    expect(await threadStoreFor(saver).recall.entries("a")).toEqual([]);

    // Each attempt's summarized prefix is edited while it summarizes: no summary can be applied.
    let turn = 100;
    const racing: Summarizer = {
      name: "racing",
      async summarize(input) {
        const first = input.messages[0]!;
        await agent.updateState(config("a"), {
          messages: [new HumanMessage({ id: first.id, content: `edit ${turn++} racing in` })],
        });
        return new ExtractiveSummarizer().summarize(input);
      },
    };
    const report = await new HistoryManager({ checkpointer: saver, summarizer: racing }).compactThread(config("a"), {
      compactionRatio: 0.5,
    });
    expect(report.status).toBe("conflict");
    expect(await threadStoreFor(saver).recall.entries("a")).toEqual([]);
    expect(await searchHistory(saver, config("a"), "invoice total ord_1001")).toEqual([]);
  });

  it("rebuilds by reindex exactly what live indexing wrote, idempotently, and keeps search consistent across a restore", async () => {
    const { saver, agent, manager } = await setup();
    await runTurns(agent, "a", 9);
    const original = await headOf(saver, "a");
    await manager.compactThread(config("a"), { compactionRatio: 0.5 });
    await runTurns(agent, "a", 6, { from: 9 });
    await manager.compactThread(config("a"), { compactionRatio: 0.5 });
    const backend = threadStoreFor(saver).recall;
    const live = byId(await backend.entries("a"));
    expect(live.length).toBeGreaterThan(8);
    for (let round = 0; round < 2; round++) {
      const report = await reindexThread(saver, config("a"));
      expect(report.indexed).toBe(live.length);
      expect(byId(await backend.entries("a"))).toEqual(live);
    }

    // Restore the first head (what the script's restore does): its messages are back in the head, so out of what
    // the index answers (their entries stay, hidden while the head holds them); the later messages the restore
    // takes out of the head become searchable.
    const head = await headOf(saver, "a");
    await manager.replaceThreadHistory(config("a"), original.messages, {
      expectedCheckpointId: head.id,
      metadata: { restore: { fromCheckpointId: original.id } },
    });
    const restored = new Set((await headOf(saver, "a")).messages.map((message) => message.id));
    const after = byId(await backend.entries("a"));
    // Answered now: every message of the thread outside the restored head (the restore took the later ones out).
    const ever = await idsEver(saver, "a");
    expect(byId(await entriesOutOfHead(saver, "a")).map((entry) => entry.messageId)).toEqual(
      [...ever].filter((id) => !restored.has(id)).sort(),
    );
    const found = await searchHistory(saver, config("a"), "invoice total ord_1001", { limit: 100 });
    for (const hit of found) expect(restored.has(hit.messageId)).toBe(false);
    const later = await searchHistory(saver, config("a"), "invoice total order ord_1010");
    expect(later[0]?.text).toContain("ord_1010");
    await reindexThread(saver, config("a"));
    expect(byId(await backend.entries("a"))).toEqual(after);
  });

  it("reindex equals live indexing after the application's own edits and removals: a redacted original and a removed message are never indexed", async () => {
    const { saver, agent, manager } = await setup();
    await runTurns(agent, "e", 6);
    await agent.invoke(
      {
        messages: [
          new HumanMessage({ id: "card", content: "please charge my card 4111-1111-1111-1111 for the renewal" }),
        ],
      },
      config("e"),
    );
    await runTurns(agent, "e", 3, { from: 6 });
    // The application redacts one message and removes another, both still in the head (LangGraph's own writes).
    await agent.updateState(config("e"), {
      messages: [new HumanMessage({ id: "card", content: "please charge my card [redacted] for the renewal" })],
    });
    await agent.updateState(config("e"), { messages: [new RemoveMessage({ id: "turn-e-4" })] });
    await manager.compactThread(config("e"), { compactionRatio: 0.6 });
    await runTurns(agent, "e", 6, { from: 9 });
    await manager.compactThread(config("e"), { compactionRatio: 0.6 });
    const backend = threadStoreFor(saver).recall;
    const live = byId(await backend.entries("e"));
    expect(live.map((entry) => entry.messageId)).toContain("card");
    expect(live.map((entry) => entry.messageId)).not.toContain("turn-e-4");
    await reindexThread(saver, config("e"));
    expect(byId(await backend.entries("e"))).toEqual(live);
    // (The scripted assistant echoed the number in its own reply, a message of its own; the user's message is redacted.)
    expect(
      (await searchHistory(saver, config("e"), "4111-1111-1111-1111", { limit: 100 })).filter(
        (hit) => hit.messageId === "card",
      ),
    ).toEqual([]);
    const card = (await searchHistory(saver, config("e"), "charge card renewal", { limit: 100 })).find(
      (hit) => hit.messageId === "card",
    );
    expect(card?.text).toBe("please charge my card [redacted] for the renewal");
  });

  it("compacts and finds a message holding a NUL character (pasted binary, tool output); a NUL thread id is a typed error", async () => {
    const { saver, agent, manager } = await setup();
    await agent.invoke(
      {
        messages: [
          new HumanMessage({ id: "nul-1", content: "the dump reads PK\u0003\u0004\u0000\u0000 then invoice ord_7731" }),
        ],
      },
      config("nul"),
    );
    await runTurns(agent, "nul", 9);
    const report = await manager.compactThread(config("nul"), { compactionRatio: 0.5 });
    expect(report.status, report.reason).toBe("compacted");
    const hits = await searchHistory(saver, config("nul"), "ord_7731");
    expect(hits.map((hit) => hit.messageId)).toContain("nul-1");
    // The next compaction of the thread works too: the thread never stops compacting.
    await runTurns(agent, "nul", 9);
    expect((await manager.compactThread(config("nul"), { compactionRatio: 0.5 })).status).toBe("compacted");
    await expect(searchHistory(saver, config("nu\u0000l"), "invoice")).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
  });
});
