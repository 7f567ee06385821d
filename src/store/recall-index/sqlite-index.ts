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
 * - Rows are written by `applySqliteRecall` inside the caller's transaction (the compare-and-swap's).
 */
import type { SqliteDatabase as Database } from "../sqlite-database.js";
import { createHash } from "node:crypto";
import { recallLabel } from "./entries.js";
import { mergeEntries, versionTexts } from "./versions.js";
import { CONTEXT_WEIGHT, NAME_WEIGHT } from "./bm25.js";
import { fts5Expression, indexTerms } from "./query.js";
import type { RecallChanges, RecallEntry, RecallMessage } from "./types.js";
import { speakersMatching, type RecallFilter } from "./filter.js";
import { vectorBytes, vectorFromBytes, type RecallVectors, type StoredVector } from "./vectors.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS compaction_recall (
  id INTEGER PRIMARY KEY,
  thread_id TEXT NOT NULL,
  message_id TEXT NOT NULL,
  role TEXT NOT NULL,
  name TEXT,
  date TEXT,
  checkpoint_id TEXT NOT NULL,
  ordinal INTEGER NOT NULL,
  text TEXT NOT NULL,
  message TEXT,
  previous_id TEXT,
  versions TEXT,
  UNIQUE (thread_id, message_id)
);
CREATE INDEX IF NOT EXISTS compaction_recall_order ON compaction_recall (thread_id, checkpoint_id, ordinal);
CREATE VIRTUAL TABLE IF NOT EXISTS compaction_recall_fts USING fts5(
  terms, name, context, content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS compaction_recall_delete AFTER DELETE ON compaction_recall BEGIN
  DELETE FROM compaction_recall_fts WHERE rowid = old.id;
END;
`;

/** The thread's token in the index: letters and digits only, so it is one FTS5 token whatever the thread id. */
export function threadKey(threadId: string): string {
  return `t${createHash("sha256").update(threadId).digest("hex").slice(0, 32)}`;
}

/**
 * Any thread's key spelled in a message (thread ids are often guessable): cut from the words the row is indexed
 * under, so another thread's rows never match a key, never fill a search's LIMIT before its thread filter, and no
 * tenant can blind another's recall. An FTS5 token is a run of letters and digits, case-folded.
 */
const SPELLED_KEY = /(^|[^\p{L}\p{N}])t[0-9a-f]{32}(?=$|[^\p{L}\p{N}])/giu;
const withoutKeys = (words: string) => words.replace(SPELLED_KEY, "$1");

/** FTS5's BM25 with the columns weighted as every index weighs them (bm25.ts): text 1, name and day, previous message. */
const RANK = "bm25(compaction_recall_fts, 1.0, " + String(NAME_WEIGHT) + ", " + String(CONTEXT_WEIGHT) + ")";

const ready = new WeakSet<Database>();

/**
 * Creates the index tables if the file lacks them (idempotent; cheap after the first call per connection). The
 * connection remembers them only when they were created outside a transaction: tables created inside one that then
 * rolls back (a full disk, an I/O error) are gone with it, and a connection that remembered them would fail every
 * later write with "no such table". Writers call it before they begin their transaction.
 */
export function ensureSqliteRecall(db: Database): void {
  if (ready.has(db)) return;
  db.exec(SCHEMA);
  // An index written before the transcript: its table gains the message column (NULL in the old rows until reindex).
  const columns = db.prepare(`PRAGMA table_info(compaction_recall)`).all() as Array<{ name: string }>;
  if (!columns.some((column) => column.name === "message"))
    db.exec(`ALTER TABLE compaction_recall ADD COLUMN message TEXT`);
  if (!columns.some((column) => column.name === "previous_id"))
    db.exec(`ALTER TABLE compaction_recall ADD COLUMN previous_id TEXT`);
  if (!columns.some((column) => column.name === "versions"))
    db.exec(`ALTER TABLE compaction_recall ADD COLUMN versions TEXT`);
  if (!db.inTransaction) ready.add(db);
}

/** The columns of the index table as this file has them (an index older than the transcript lacks its columns). */
function recallColumns(db: Database): Set<string> {
  return new Set(
    (db.prepare(`PRAGMA table_info(compaction_recall)`).all() as Array<{ name: string }>).map((column) => column.name),
  );
}

function exists(db: Database): boolean {
  if (ready.has(db)) return true;
  return (
    db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'compaction_recall_fts'`).get() !==
    undefined
  );
}

/** Writes `changes`; call it inside the transaction of the write it belongs to. */
export function applySqliteRecall(db: Database, { threadId, add: given, move = [] }: RecallChanges): void {
  if (given.length === 0 && move.length === 0) return;
  ensureSqliteRecall(db);
  // Only an original with no place yet (NOT_LEFT) takes the place where its edited copy left (entries.ts: moved).
  const moved = db.prepare(
    `UPDATE compaction_recall SET checkpoint_id = ?, ordinal = ?, previous_id = ? WHERE thread_id = ? AND message_id = ? AND ordinal < 0`,
  );
  for (const { messageId, checkpointId, ordinal, previousId } of move)
    moved.run(checkpointId, ordinal, previousId ?? null, threadId, messageId);
  if (given.length === 0) return;
  const key = threadKey(threadId);
  // A message indexed before keeps every version and the place where it first left (versions.ts): its old row goes
  // (one statement for all ids; the trigger removes its words) and the merged one is written.
  const ids = JSON.stringify(given.map((entry) => entry.messageId));
  const indexed = db.prepare(SOME_ROWS).all(threadId, ids) as Row[];
  const add = mergeEntries(given, new Map(indexed.map((row) => [row.message_id, toEntry(row)])));
  if (indexed.length > 0)
    db.prepare(
      `DELETE FROM compaction_recall WHERE thread_id = ? AND message_id IN (SELECT value FROM json_each(?))`,
    ).run(threadId, ids);
  const insert = db.prepare(
    `INSERT INTO compaction_recall (thread_id, message_id, role, name, date, checkpoint_id, ordinal, text, message, previous_id, versions) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // The words go to the contentless FTS5 table only: the row keeps the text, not a second copy of it.
  const words = db.prepare(`INSERT INTO compaction_recall_fts (rowid, terms, name, context) VALUES (?, ?, ?, ?)`);
  let previous: { entry: RecallEntry; terms: string } | undefined;
  for (const entry of add) {
    const { lastInsertRowid } = insert.run(
      threadId,
      entry.messageId,
      entry.role,
      entry.name ?? null,
      entry.date ?? null,
      entry.checkpointId,
      entry.ordinal,
      entry.text,
      entry.message ?? null,
      entry.previousId ?? null,
      entry.versions ? JSON.stringify(entry.versions) : null,
    );
    const terms = withoutKeys(indexTerms(entry.text));
    // The context is most often the whole text of the entry before: its words are cut once.
    const context = !entry.context
      ? ""
      : previous && previous.entry.text === entry.context
        ? previous.terms
        : withoutKeys(indexTerms(entry.context));
    words.run(lastInsertRowid, `${terms} ${key}`, withoutKeys(indexTerms(recallLabel(entry))), context);
    previous = { entry, terms };
  }
}

interface Row {
  message_id: string;
  role: RecallEntry["role"];
  name: string | null;
  date: string | null;
  checkpoint_id: string;
  ordinal: number;
  text: string;
  context?: string | null;
  message?: string | null;
  previous_id?: string | null;
  versions?: string | null;
}

/**
 * Whole entries are read with every column the file has (`*`): a file indexed before the transcript or its versions
 * lacks their columns until its next write, and its rows read as entries without them.
 */
const ALL_ROWS = `SELECT * FROM compaction_recall WHERE thread_id = ? ORDER BY checkpoint_id, ordinal`;
const SOME_ROWS = `SELECT * FROM compaction_recall WHERE thread_id = ? AND message_id IN (SELECT value FROM json_each(?))`;

/** A whole entry, as the transcript holds it. */
function toEntry(row: Row): RecallEntry {
  return {
    ...toMessage(row),
    ...(row.message ? { message: row.message } : {}),
    ...(row.previous_id ? { previousId: row.previous_id } : {}),
    ...(row.versions ? { versions: JSON.parse(row.versions) as RecallEntry["versions"] } : {}),
  };
}

function toMessage(row: Row): RecallMessage & { ordinal: number } {
  return {
    messageId: row.message_id,
    role: row.role,
    ...(row.name ? { name: row.name } : {}),
    text: row.text,
    ...(row.date ? { date: row.date } : {}),
    checkpointId: row.checkpoint_id,
    ordinal: row.ordinal,
  };
}

export class SqliteRecall {
  readonly vectors: RecallVectors;

  constructor(private readonly db: Database) {
    this.vectors = new SqliteVectors(db);
  }

  async search(
    threadId: string,
    terms: readonly string[],
    limit: number,
    filter?: RecallFilter,
  ): Promise<Array<RecallMessage & { ordinal: number; score: number }>> {
    if (!exists(this.db)) return [];
    const match = `terms : "${threadKey(threadId)}" AND (${fts5Expression(terms)})`;
    if (filter) {
      // Filtered: the conditions beside the match, so the best `limit` are of the messages that pass.
      const speakers =
        filter.speaker === undefined ? null : JSON.stringify(speakersMatching(this.speakers(threadId), filter));
      const rows = this.db
        .prepare(
          "SELECT r.message_id, r.role, r.name, r.date, r.checkpoint_id, r.ordinal, r.text, " +
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
      return rows.map((row) => ({ ...toMessage(row), score: -row.rank }));
    }
    // The best rows first, from the FTS index alone; only those few are then read from the table.
    const rows = this.db
      .prepare(
        "SELECT r.message_id, r.role, r.name, r.date, r.checkpoint_id, r.ordinal, r.text, best.rank " +
          "FROM (SELECT rowid, " +
          RANK +
          " AS rank FROM compaction_recall_fts WHERE compaction_recall_fts MATCH ? ORDER BY rank LIMIT ?) AS best " +
          "JOIN compaction_recall r ON r.id = best.rowid WHERE r.thread_id = ? " +
          "ORDER BY best.rank, r.checkpoint_id, r.ordinal",
      )
      .all(match, limit, threadId) as Array<Row & { rank: number }>;
    return rows.map((row) => ({ ...toMessage(row), score: -row.rank }));
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
    return new Map(rows.map((row) => [row.message_id, new Set(versionTexts(toEntry(row)))]));
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
