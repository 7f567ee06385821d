/**
 * The SQLite recall index's tables and its writes: `applySqliteRecall`, inside the caller's transaction (the
 * compare-and-swap's, the prune's), and the rows as entries (sqlite-index.ts reads and searches them).
 */
import type { SqliteDatabase as Database } from "../../sqlite-database.js";
import { createHash } from "node:crypto";
import { recallLabel } from "./entries.js";
import { mergeEntries } from "./versions.js";
import { indexTerms } from "../../messages/words.js";
import type { RecallChanges, RecallEntry, RecallMessage } from "./types.js";
import { packMessage, textOfMessage, unpackMessage } from "./packed-message.js";

export const SCHEMA = `
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
export const SPELLED_KEY = /(^|[^\p{L}\p{N}])t[0-9a-f]{32}(?=$|[^\p{L}\p{N}])/giu;
export const withoutKeys = (words: string) => words.replace(SPELLED_KEY, "$1");

export const ready = new WeakSet<Database>();

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
  if (db.inTransaction) return;
  packRows(db);
  ready.add(db);
}

/** Rows packed per transaction when a file written before the packed layout is brought to it. */
const PACK_BATCH = 500;

/**
 * Rows written before messages were packed (their message as JSON text, their words in `text` a second time): each
 * rewritten with its message packed and no text (packed-message.ts), in transactions of a few hundred rows. The FTS
 * index keeps its rows (the same ids and words). Rows without a message keep their text: it is all they hold.
 */
function packRows(db: Database): void {
  const old = db.prepare(
    `SELECT id, message FROM compaction_recall WHERE typeof(message) = 'text' ORDER BY id LIMIT ?`,
  );
  const packed = db.prepare(`UPDATE compaction_recall SET message = ?, text = '' WHERE id = ?`);
  for (;;) {
    const rows = old.all(PACK_BATCH) as Array<{ id: number; message: string }>;
    if (rows.length === 0) return;
    db.transaction(() => {
      for (const row of rows) packed.run(packMessage(row.message), row.id);
    }).immediate();
  }
}

/** The columns of the index table as this file has them (an index older than the transcript lacks its columns). */
export function recallColumns(db: Database): Set<string> {
  return new Set(
    (db.prepare(`PRAGMA table_info(compaction_recall)`).all() as Array<{ name: string }>).map((column) => column.name),
  );
}

/** Whether the index has `column` (an index written by an older version, not written to since, may not). */
export function hasRecallColumn(db: Database, column: string): boolean {
  return ready.has(db) || recallColumns(db).has(column);
}

export function exists(db: Database): boolean {
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
      // The words are derived from the packed message; only a row without one keeps its text.
      entry.message === undefined ? entry.text : "",
      entry.message === undefined ? null : packMessage(entry.message),
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

export interface Row {
  message_id: string;
  role: RecallEntry["role"];
  name: string | null;
  date: string | null;
  checkpoint_id: string;
  ordinal: number;
  text: string;
  context?: string | null;
  /** Packed (packed-message.ts), or JSON text in a row written before. */
  message?: string | Uint8Array | null;
  previous_id?: string | null;
  versions?: string | null;
}

/**
 * Whole entries are read with every column the file has (`*`): a file indexed before the transcript or its versions
 * lacks their columns until its next write, and its rows read as entries without them.
 */
export const ALL_ROWS = `SELECT * FROM compaction_recall WHERE thread_id = ? ORDER BY checkpoint_id, ordinal`;
export const SOME_ROWS = `SELECT * FROM compaction_recall WHERE thread_id = ? AND message_id IN (SELECT value FROM json_each(?))`;

/** A whole entry, as the transcript holds it. */
export function toEntry(row: Row): RecallEntry {
  const message = unpackMessage(row.message);
  return {
    ...toMessage(row, message),
    ...(message ? { message } : {}),
    ...(row.previous_id ? { previousId: row.previous_id } : {}),
    ...(row.versions ? { versions: JSON.parse(row.versions) as RecallEntry["versions"] } : {}),
  };
}

/** `message`: the row's message, unpacked already. */
export function toMessage(row: Row, message = unpackMessage(row.message)): RecallMessage & { ordinal: number } {
  return {
    messageId: row.message_id,
    role: row.role,
    ...(row.name ? { name: row.name } : {}),
    text: row.text === "" && message !== undefined ? textOfMessage(message) : row.text,
    ...(row.date ? { date: row.date } : {}),
    checkpointId: row.checkpoint_id,
    ordinal: row.ordinal,
  };
}
