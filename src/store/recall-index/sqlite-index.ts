/**
 * The recall index in a SQLite checkpoint file: a table of indexed messages (their text, who, when, where) and a
 * contentless FTS5 index of their words (a row's words leave with it, by trigger), ranked with BM25.
 *
 * - Matching is on the message's words (store/recall-index/query.ts: `indexTerms`), through FTS5's `porter unicode61` tokenizer:
 *   English words are stemmed ("researching" finds "research"), diacritics folded, other scripts kept as words
 *   (unspaced scripts arrive as character pairs). The message's name (speaker, agent, tool) and day are a second
 *   column, at half the weight ("what did Melanie paint in June?" favours Melanie's June messages), and the previous
 *   message's words a third, at 0.3 (a question and its answer use different words; a later question paraphrases
 *   both). What each choice bought on real conversations is measured by `npm run bench:retention` (docs/benchmarks.md).
 * - A thread is a token of its own in each of its rows (`threadKey`, a hash of the thread id), and every search
 *   requires it inside the MATCH: the engine never ranks another thread's rows, and a query cannot reach them (the
 *   row's thread id is checked too).
 * - Rows are written by `applySqliteRecall` (sqlite-apply.ts) inside the caller's transaction (the compare-and-swap's).
 */
import type { SqliteDatabase as Database } from "../../sqlite-database.js";
import { versionForms } from "./versions.js";
import { CONTEXT_WEIGHT, NAME_WEIGHT } from "./bm25.js";
import { fts5Expression } from "./query.js";
import {
  ALL_ROWS,
  applySqliteRecall,
  ensureSqliteRecall,
  exists,
  hasRecallColumn,
  recallColumns,
  SOME_ROWS,
  threadKey,
  toEntry,
  toMessage,
  type Row,
} from "./sqlite-apply.js";

export { applySqliteRecall, ensureSqliteRecall, threadKey } from "./sqlite-apply.js";
import type { RecallChanges, RecallEntry, RecallHit, RecallMessage } from "./types.js";
import { speakersMatching, type RecallFilter } from "./filter.js";
import { vectorBytes, vectorFromBytes, type RecallVectors, type StoredVector } from "./vectors.js";

/** A row of a search: the message, its score and the versions it is found by (versions.ts). */
function hitOf(row: Row, score: number): RecallHit {
  return { ...toMessage(row), ...(row.versions ? { versions: toEntry(row).versions! } : {}), score };
}

/** FTS5's BM25 with the columns weighted as every index weighs them (bm25.ts): text 1, name and day, previous message. */
const RANK = "bm25(compaction_recall_fts, 1.0, " + String(NAME_WEIGHT) + ", " + String(CONTEXT_WEIGHT) + ")";

export class SqliteRecall {
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
          "SELECT r.message_id, r.role, r.name, r.date, r.checkpoint_id, r.ordinal, r.text, " +
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
        "SELECT r.message_id, r.role, r.name, r.date, r.checkpoint_id, r.ordinal, r.text, " +
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
        `SELECT message_id, role, name, date, checkpoint_id, ordinal, text FROM compaction_recall WHERE thread_id = ? AND (checkpoint_id, ordinal) < (?, ?) ORDER BY checkpoint_id DESC, ordinal DESC LIMIT ?`,
      )
      .all(threadId, at.checkpointId, at.ordinal, count) as Row[];
    const after = this.db
      .prepare(
        `SELECT message_id, role, name, date, checkpoint_id, ordinal, text FROM compaction_recall WHERE thread_id = ? AND (checkpoint_id, ordinal) > (?, ?) ORDER BY checkpoint_id, ordinal LIMIT ?`,
      )
      .all(threadId, at.checkpointId, at.ordinal, count) as Row[];
    const plain = (row: Row) => {
      const { ordinal: _ordinal, ...message } = toMessage(row);
      return message;
    };
    return { before: before.reverse().map(plain), after: after.map(plain) };
  }

  /** Every indexed entry of the thread, in order (for tests and reindex checks). */
  async entries(threadId: string): Promise<RecallEntry[]> {
    if (!exists(this.db)) return [];
    // An index written before the transcript, not yet written to since, has no message column: its entries have none.
    const rows = this.db.prepare(ALL_ROWS).all(threadId) as Row[];
    return rows.map(toEntry);
  }

  /** Which of `messageIds` the transcript holds with their stored message, and the texts of their versions. */
  async recorded(threadId: string, messageIds: readonly string[]): Promise<Map<string, Set<string>>> {
    if (messageIds.length === 0 || !exists(this.db)) return new Map();
    if (!recallColumns(this.db).has("message")) return new Map();
    const rows = (this.db.prepare(SOME_ROWS).all(threadId, JSON.stringify(messageIds)) as Row[]).filter(
      (row) => row.message,
    );
    return new Map(rows.map((row) => [row.message_id, new Set(versionForms(toEntry(row)))]));
  }

  /** Writes `changes` in one transaction, idempotently by message id (the in-graph runtime, before its state update). */
  async record(changes: RecallChanges): Promise<void> {
    if (changes.add.length > 0 || (changes.move ?? []).length > 0) ensureSqliteRecall(this.db);
    this.db.transaction(() => applySqliteRecall(this.db, changes)).immediate();
  }

  /** Replaces the thread's entries with `entries`, in one transaction (reindex). */
  async replaceThread(threadId: string, entries: readonly RecallEntry[]): Promise<void> {
    ensureSqliteRecall(this.db);
    this.db
      .transaction(() => {
        this.db.prepare(`DELETE FROM compaction_recall WHERE thread_id = ?`).run(threadId);
        applySqliteRecall(this.db, { threadId, add: [...entries] });
      })
      .immediate();
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
