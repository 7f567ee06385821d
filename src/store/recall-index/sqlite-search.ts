/**
 * Searching the recall index of a SQLite file (sqlite-index.ts says what it holds): BM25 over the FTS5 index, the
 * thread's own token required inside every MATCH, a filter's conditions beside the match, and the semantic ranking's
 * vectors in a table of their own.
 */
import type { SqliteDatabase as Database } from "../../sqlite-database.js";
import { CONTEXT_WEIGHT, NAME_WEIGHT } from "./bm25.js";
import { speakersMatching, type RecallFilter } from "./filter.js";
import { fts5Expression } from "./query.js";
import type { RecallSearch } from "./search-types.js";
import { exists, hasRecallColumn, threadKey, toEntry, toMessage, type Row } from "./sqlite-apply.js";
import type { RecallHit, RecallMessage } from "./types.js";
import { vectorBytes, vectorFromBytes, type RecallVectors, type StoredVector } from "./vectors.js";

/** A row of a search: the message, its score and its versions (versions.ts). */
function hitOf(row: Row, score: number): RecallHit {
  return { ...toMessage(row), ...(row.versions ? { versions: toEntry(row).versions! } : {}), score };
}

/** FTS5's BM25 with the columns weighted as every index weighs them (bm25.ts): text 1, name and day, previous message. */
const RANK = "bm25(compaction_recall_fts, 1.0, " + String(NAME_WEIGHT) + ", " + String(CONTEXT_WEIGHT) + ")";

export class SqliteSearch implements RecallSearch {
  readonly vectors: RecallVectors;

  constructor(private readonly db: Database) {
    this.vectors = new SqliteVectors(db);
  }

  async search(threadId: string, terms: readonly string[], limit: number, filter?: RecallFilter): Promise<RecallHit[]> {
    if (!exists(this.db)) return [];
    const match = `terms : "${threadKey(threadId)}" AND (${fts5Expression(terms)})`;
    // An index written before versions were kept, not written to since, has no such column.
    const versions = hasRecallColumn(this.db, "versions") ? "r.versions" : "NULL AS versions";
    if (filter) {
      // Filtered: the conditions beside the match, so the best `limit` are of the messages that pass.
      const speakers =
        filter.speaker === undefined ? null : JSON.stringify(speakersMatching(this.speakers(threadId), filter));
      const rows = this.db
        .prepare(
          "SELECT r.message_id, r.role, r.name, r.date, r.checkpoint_id, r.ordinal, r.text, r.message, " +
            versions +
            ", " +
            RANK +
            " AS rank " +
            "FROM compaction_recall_fts JOIN compaction_recall r ON r.id = compaction_recall_fts.rowid " +
            "WHERE compaction_recall_fts MATCH ? AND r.thread_id = ? " +
            "AND (? IS NULL OR coalesce(nullif(r.name, ''), r.role) IN (SELECT value FROM json_each(?))) " +
            "AND (? IS NULL OR r.date >= ?) AND (? IS NULL OR r.date <= ?) " +
            "ORDER BY rank, r.checkpoint_id, r.ordinal LIMIT ?",
        )
        .all(
          match,
          threadId,
          speakers,
          speakers,
          filter.from ?? null,
          filter.from ?? null,
          filter.to ?? null,
          filter.to ?? null,
          limit,
        ) as Array<Row & { rank: number }>;
      return rows.map((row) => hitOf(row, -row.rank));
    }
    // The best rows first, from the FTS index alone; only those few are then read from the table.
    const rows = this.db
      .prepare(
        "SELECT r.message_id, r.role, r.name, r.date, r.checkpoint_id, r.ordinal, r.text, r.message, " +
          versions +
          ", best.rank " +
          "FROM (SELECT rowid, " +
          RANK +
          " AS rank FROM compaction_recall_fts WHERE compaction_recall_fts MATCH ? ORDER BY rank LIMIT ?) AS best " +
          "JOIN compaction_recall r ON r.id = best.rowid WHERE r.thread_id = ? " +
          "ORDER BY best.rank, r.checkpoint_id, r.ordinal",
      )
      .all(match, limit, threadId) as Array<Row & { rank: number }>;
    return rows.map((row) => hitOf(row, -row.rank));
  }

  /** Who said the thread's messages: each distinct name, else role (recall-index/filter.ts). */
  private speakers(threadId: string): string[] {
    return (
      this.db
        .prepare(
          `SELECT DISTINCT coalesce(nullif(name, ''), role) AS speaker FROM compaction_recall WHERE thread_id = ?`,
        )
        .all(threadId) as Array<{ speaker: string }>
    ).map((row) => row.speaker);
  }

  async neighbours(
    threadId: string,
    at: { checkpointId: string; ordinal: number },
    count: number,
  ): Promise<{ before: RecallMessage[]; after: RecallMessage[] }> {
    if (count === 0) return { before: [], after: [] };
    const before = this.db
      .prepare(
        `SELECT message_id, role, name, date, checkpoint_id, ordinal, text, message FROM compaction_recall WHERE thread_id = ? AND (checkpoint_id, ordinal) < (?, ?) ORDER BY checkpoint_id DESC, ordinal DESC LIMIT ?`,
      )
      .all(threadId, at.checkpointId, at.ordinal, count) as Row[];
    const after = this.db
      .prepare(
        `SELECT message_id, role, name, date, checkpoint_id, ordinal, text, message FROM compaction_recall WHERE thread_id = ? AND (checkpoint_id, ordinal) > (?, ?) ORDER BY checkpoint_id, ordinal LIMIT ?`,
      )
      .all(threadId, at.checkpointId, at.ordinal, count) as Row[];
    // A neighbour's text is unpacked when it is read: the search keeps only those out of the head, and fewer.
    const plain = (row: Row): RecallMessage => {
      const { ordinal: _ordinal, text: _text, ...message } = toMessage({ ...row, text: "", message: null });
      let text: string | undefined;
      return Object.defineProperty(message, "text", {
        enumerable: true,
        get: () => (text ??= toMessage(row).text),
      }) as RecallMessage;
    };
    return { before: before.reverse().map(plain), after: after.map(plain) };
  }
}

const VECTORS = `
CREATE TABLE IF NOT EXISTS compaction_recall_vectors (
  thread_id TEXT NOT NULL,
  model TEXT NOT NULL,
  message_id TEXT NOT NULL,
  hash TEXT NOT NULL,
  vector BLOB NOT NULL,
  PRIMARY KEY (thread_id, model, message_id)
) WITHOUT ROWID;
`;

/** The semantic ranking's vectors in the file (recall-index/vectors.ts), created on their first write. */
class SqliteVectors implements RecallVectors {
  constructor(private readonly db: Database) {}

  async read(threadId: string, model: string): Promise<StoredVector[]> {
    if (
      this.db
        .prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'compaction_recall_vectors'`)
        .get() === undefined
    )
      return [];
    const rows = this.db
      .prepare(`SELECT message_id, hash, vector FROM compaction_recall_vectors WHERE thread_id = ? AND model = ?`)
      .all(threadId, model) as Array<{ message_id: string; hash: string; vector: Buffer }>;
    return rows.map((row) => ({ messageId: row.message_id, hash: row.hash, vector: vectorFromBytes(row.vector) }));
  }

  async write(threadId: string, model: string, vectors: readonly StoredVector[]): Promise<void> {
    if (vectors.length === 0) return;
    this.db.exec(VECTORS);
    const upsert = this.db.prepare(
      `INSERT OR REPLACE INTO compaction_recall_vectors (thread_id, model, message_id, hash, vector) VALUES (?, ?, ?, ?, ?)`,
    );
    this.db
      .transaction(() => {
        for (const vector of vectors)
          upsert.run(threadId, model, vector.messageId, vector.hash, vectorBytes(vector.vector));
      })
      .immediate();
  }
}
