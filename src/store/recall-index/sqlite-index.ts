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
 * - Searched by sqlite-search.ts.
 */
import type { SqliteDatabase as Database } from "../../sqlite-database.js";
import { versionForms } from "./versions.js";
import {
  ALL_ROWS,
  applySqliteRecall,
  ensureSqliteRecall,
  exists,
  recallColumns,
  SOME_ROWS,
  toEntry,
  type Row,
} from "./sqlite-apply.js";

export { applySqliteRecall, ensureSqliteRecall, threadKey } from "./sqlite-apply.js";
import type { RecallChanges, RecallEntry } from "./types.js";
import type { RecallBackend } from "../backend.js";

export class SqliteRecall implements RecallBackend {
  constructor(readonly db: Database) {}

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
