/**
 * The transcript keeps each message once: packed (its serde JSON deflated with a fixed dictionary), with no second
 * copy of its words; what search shows is derived from it exactly as the entry wrote it. A store written by the
 * previous release (the message as JSON text, its words in `text`) is read and searched as before, and its first
 * write brings it to the packed layout without losing a message (SQLite and Postgres).
 */
import {
  AIMessage,
  AIMessageChunk,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  type BaseMessage,
} from "@langchain/core/messages";
import type { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import type { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { recallText } from "../../src/messages/message-shape.js";
import { searchHistory } from "../../src/recall/search.js";
import { readTranscript } from "../../src/recall/transcript.js";
import { serializeMessage } from "../../src/store/recall-index/message-serde.js";
import { packMessage, textOfMessage, unpackMessage } from "../../src/store/recall-index/packed-message.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import { createTestAgent, runTurns } from "../support/agents.js";
import { createStore, type TestStore } from "../support/savers.js";

const text = fc.string({ unit: "binary", maxLength: 80 });
const message = fc.oneof(
  fc.record({ id: fc.uuid(), content: text }).map((fields) => new HumanMessage(fields)),
  fc.record({ id: fc.uuid(), content: text }).map((fields) => new SystemMessage(fields)),
  fc
    .record({
      id: fc.uuid(),
      content: fc.oneof(
        text,
        fc.array(
          fc.oneof(
            text.map((part) => ({ type: "text" as const, text: part })),
            fc.constant({ type: "image_url" as const, image_url: { url: "https://example.com/a.png" } }),
          ),
          { maxLength: 3 },
        ),
      ),
      calls: fc.array(
        fc.record({ id: fc.uuid(), name: fc.stringMatching(/^[a-z_]{1,12}$/), args: fc.dictionary(text, text) }),
        { maxLength: 2 },
      ),
    })
    .map(({ id, content, calls }) => new AIMessage({ id, content, tool_calls: calls })),
  fc
    .record({ id: fc.uuid(), content: text, name: fc.stringMatching(/^[a-z_]{1,12}$/) })
    .map(
      ({ id, content, name }) =>
        new AIMessageChunk({ id, content, tool_call_chunks: [{ id: "c", name, args: "{}", index: 0 }] }),
    ),
  fc
    .record({ id: fc.uuid(), content: text, call: fc.uuid() })
    .map(({ id, content, call }) => new ToolMessage({ id, content, tool_call_id: call, name: "lookup" })),
);

it("a packed message unpacks to its JSON, and its text is the entry's text (recallText), for any message", () => {
  fc.assert(
    fc.property(message, (drawn: BaseMessage) => {
      const json = serializeMessage(drawn);
      expect(unpackMessage(packMessage(json))).toBe(json);
      expect(unpackMessage(`\\x${packMessage(json).toString("hex")}`)).toBe(json);
      expect(unpackMessage(json)).toBe(json);
      expect(textOfMessage(json)).toBe(recallText(drawn));
    }),
    { numRuns: 300, seed: 20261207 },
  );
});

/** The store's transcript rows as the previous release wrote them: the message as JSON text, its words in `text`. */
async function toPreviousLayout(store: TestStore): Promise<number> {
  if (store.kind === "sqlite") {
    const db = (store.saver as SqliteSaver).db;
    const rows = db.prepare(`SELECT id, message FROM compaction_recall WHERE message IS NOT NULL`).all() as Array<{
      id: number;
      message: Buffer;
    }>;
    const update = db.prepare(`UPDATE compaction_recall SET message = ?, text = ? WHERE id = ?`);
    for (const row of rows) {
      const json = unpackMessage(row.message)!;
      update.run(json, textOfMessage(json), row.id);
    }
    return rows.length;
  }
  const pool = (store.saver as PostgresSaver)["pool"];
  const s = `"${store.location.schema!}"`;
  const rows = (
    await pool.query(`SELECT thread_id, message_id, packed FROM ${s}.compaction_recall WHERE packed IS NOT NULL`)
  ).rows as Array<{ thread_id: string; message_id: string; packed: Buffer }>;
  for (const row of rows) {
    const json = unpackMessage(row.packed)!;
    await pool.query(
      `UPDATE ${s}.compaction_recall SET message = $3, text = $4 WHERE thread_id = $1 AND message_id = $2`,
      [row.thread_id, row.message_id, json, textOfMessage(json).replaceAll("\u0000", "\uFFFD")],
    );
  }
  await pool.query(`ALTER TABLE ${s}.compaction_recall DROP COLUMN packed`);
  return rows.length;
}

/** Rows whose message is not packed. */
async function unpackedRows(store: TestStore): Promise<number> {
  if (store.kind === "sqlite")
    return Number(
      (
        (store.saver as SqliteSaver).db
          .prepare(`SELECT count(*) AS n FROM compaction_recall WHERE typeof(message) = 'text' OR text <> ''`)
          .get() as { n: number }
      ).n,
    );
  const result = await (store.saver as PostgresSaver)["pool"].query(
    `SELECT count(*) AS n FROM "${store.location.schema!}".compaction_recall r WHERE to_jsonb(r) ->> 'packed' IS NULL OR text <> ''`,
  );
  return Number(result.rows[0].n);
}

describe.each(["sqlite", "postgres"] as const)("the packed transcript (%s)", (kind) => {
  let store: TestStore;
  afterEach(async () => store?.close());

  it("a store of the previous layout is read and searched as before; its first write packs it, nothing lost", async () => {
    store = await createStore(kind);
    const config = { configurable: { thread_id: "upgrade" } };
    const { agent } = createTestAgent(store.saver);
    const manager = new HistoryManager({
      checkpointer: store.saver,
      trigger: { tokens: 600 },
      summarizer: new ExtractiveSummarizer(),
      env: {},
    });
    await runTurns(agent, "upgrade", 24);
    expect((await manager.compactThread(config)).status).toBe("compacted");
    const transcript = async () =>
      (await readTranscript(store.saver, config, { limit: 10_000 })).messages.map((line) => [
        line.source,
        line.message.id,
        line.message.content,
      ]);
    const search = async (query: string) =>
      (await searchHistory(store.saver, config, query, { limit: 3 })).map((hit) => [hit.messageId, hit.text]);
    // A word of the 3rd turn, as the packed layout answers it.
    const third = String((await readTranscript(store.saver, config)).messages[4]!.message.content);
    const query = third.split(/\s+/).slice(0, 6).join(" ");
    const packed = { transcript: await transcript(), hits: await search(query) };
    expect(packed.hits.length).toBeGreaterThan(0);
    expect(await unpackedRows(store)).toBe(0);

    // The same store as the previous release left it, opened by this release (a new process: a new connection).
    expect(await toPreviousLayout(store)).toBeGreaterThan(0);
    store = { ...store, saver: await store.reopen() };
    expect(await unpackedRows(store)).toBeGreaterThan(0);
    expect(await transcript()).toEqual(packed.transcript);
    expect(await search(query)).toEqual(packed.hits);

    // Its first write (another compaction) packs every row; the transcript and the search answer as before.
    await runTurns(createTestAgent(store.saver).agent, "upgrade", 8, { from: 24 });
    const upgraded = new HistoryManager({
      checkpointer: store.saver,
      trigger: { tokens: 600 },
      summarizer: new ExtractiveSummarizer(),
      env: {},
    });
    expect((await upgraded.compactThread(config, { force: true })).status).toBe("compacted");
    expect(await unpackedRows(store)).toBe(0);
    // Every message the thread held before, in order, content-identical; the new turns after them.
    const conversation = (lines: unknown[][]) =>
      lines.filter(([source]) => source !== "summary").map(([, id, content]) => [id, content]);
    const before = conversation(packed.transcript);
    expect(conversation(await transcript()).slice(0, before.length)).toEqual(before);
    expect(await search(query)).toEqual(packed.hits);
  });
});
