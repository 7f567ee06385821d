/**
 * The recall index in a Postgres checkpoint database: a table of indexed messages with a `tsvector` document and a
 * GIN index, ranked by BM25 (bm25.ts), as the in-process index ranks.
 *
 * - Postgres's own ranking (`ts_rank_cd`) weighs every query word alike: "what did Caroline paint" would rank
 *   messages by "what" and "did" as much as by "paint". So each thread keeps how many of its messages hold each word
 *   (`compaction_recall_terms`, written with the rows), and a search weighs each word by its inverse document
 *   frequency in the thread, and a message's words by its length against the thread's average (its distinct words,
 *   `body_length`, stored with the row; the term table's sum over the thread's size), in one statement over the rows
 *   that hold a query word. A word in the name or the previous message counts with the message's own frequency of
 *   that word (the name and the context have no statistics of their own here).
 *   Measured on the retention benchmark's conversations: see docs/benchmarks.md (recall rows, Postgres).
 * - The text search configuration is an option (`language`, default `simple`: any language is cut into words, none
 *   is stemmed; `english` stems English). It is recorded per thread, and every later write of the thread's rows uses
 *   it (postgres-apply.ts), so a search uses the configuration the thread's rows were written with; a reindex
 *   (`replaceThread`) is how a thread changes it.
 * - The document is the message's words (store/recall-index/query.ts: `indexTerms`) at weight D, its name and day at weight B and
 *   the previous message's words at weight C (see sqlite-index.ts for why); a search tells them apart by weight
 *   (the body stays at the default weight, so its tsvector is not copied once more to be relabelled).
 * - Every value reaches Postgres as a bound parameter; a query is a tsquery of quoted lexemes (query.ts), so no
 *   operator can be spelled by the user.
 * - Rows are written by `applyPostgresRecall` inside the caller's transaction (the compare-and-swap's).
 */
import { quoteIdentifier } from "../sql.js";
import { argument } from "../../options/check.js";
import { language as LANGUAGE } from "../../options/rules.js";
import { ensurePostgresRecall, inTransaction } from "./postgres-setup.js";
import { hasTable, PostgresVectors, type PostgresPool } from "./postgres-vectors.js";
import type { RecallVectors } from "./vectors.js";
import { B, CONTEXT_WEIGHT, idf, K1, NAME_WEIGHT } from "./bm25.js";
import { tsqueryText } from "./query.js";
import type { RecallChanges, RecallEntry, RecallHit, RecallMessage, RecallVersion } from "./types.js";
import { speakersMatching, type RecallFilter } from "./filter.js";
import { applyPostgresRecall, entryOfRow, MESSAGE_COLUMNS, toMessage } from "./postgres-apply.js";
import { versionForms } from "./versions.js";

export { applyPostgresRecall } from "./postgres-apply.js";
export type { PostgresPool } from "./postgres-vectors.js";

import { DEFAULT_RECALL_LANGUAGE } from "./types.js";

export const DEFAULT_POSTGRES_LANGUAGE = DEFAULT_RECALL_LANGUAGE;

/** A text search configuration name: letters, digits and underscores (it is passed as a regconfig value). */
export function validateLanguage(language: unknown): string {
  return argument("recall.language", language, LANGUAGE);
}

export class PostgresRecall {
  readonly vectors: RecallVectors;

  constructor(
    private readonly pool: PostgresPool,
    private readonly schema: string,
    private readonly language: string = DEFAULT_POSTGRES_LANGUAGE,
  ) {
    this.vectors = new PostgresVectors(pool, schema);
  }

  /** True when the database has the index tables (a thread may have none: nothing compacted yet). */
  private async present(): Promise<boolean> {
    return hasTable(this.pool, this.schema, "compaction_recall_terms");
  }

  async search(threadId: string, terms: readonly string[], limit: number, filter?: RecallFilter): Promise<RecallHit[]> {
    if (!(await this.present())) return [];
    const s = quoteIdentifier(this.schema);
    // The thread's configuration, its size, and how many of its messages hold each query word (one round trip).
    const stats = await this.pool.query(
      `SELECT t.language::text AS language, t.documents,
              (SELECT coalesce(json_object_agg(w.term, w.documents), '{}'::json) FROM ${s}.compaction_recall_terms w WHERE w.thread_id = $1 AND w.term = ANY($2::text[])) AS counts,
              (SELECT coalesce(sum(w.documents), 0) FROM ${s}.compaction_recall_terms w WHERE w.thread_id = $1) AS words
       FROM ${s}.compaction_recall_threads t WHERE t.thread_id = $1`,
      [threadId, [...terms]],
    );
    const thread = stats.rows[0];
    if (!thread) return [];
    const counts = thread.counts as Record<string, number>;
    const documents = Math.max(1, Number(thread.documents));
    // A filter's conditions sit beside the match, so the best `limit` are of the messages that pass (filter.ts).
    const speakers = filter?.speaker === undefined ? null : speakersMatching(await this.speakers(threadId), filter);
    // BM25 (bm25.ts) over the rows that hold a query word: per word, its inverse document frequency in the thread,
    // times its weight in the message (by the message's distinct words against the thread's average), plus the name's
    // and the previous message's shares. One score term per word, written out (the query has at most MAX_QUERY_TERMS
    // words): a subquery over the words cost a scan of them per row (85 ms p50 against 28 ms on a 10,000-message
    // thread, npm run bench:recall). A word's three weighted tests run only on the rows that hold the word. Ranked on
    // the index columns alone; only the best few rows' texts are then read.
    const parameters: unknown[] = [
      threadId,
      tsqueryText(terms),
      limit,
      String(thread.language),
      K1,
      B,
      Math.max(1, Number(thread.words) / documents),
      NAME_WEIGHT,
      CONTEXT_WEIGHT,
      speakers,
      filter?.from ?? null,
      filter?.to ?? null,
    ];
    const columns: string[] = [];
    terms.forEach((term, index) => {
      columns.push(wordColumns(index, parameters.length + 1));
      parameters.push(
        tsqueryText([term]),
        tsqueryText([term], "D"),
        tsqueryText([term], "B"),
        tsqueryText([term], "C"),
        idf(counts[term] ?? 0, documents),
      );
    });
    // Composed from constants, parameter numbers and the quoted schema only (the words are parameters).
    const sql = ({ versions, bodyLength }: { versions: string; bodyLength: string }) =>
      "WITH w AS (SELECT to_tsquery($4::regconfig, $2) AS query, " +
      columns.join(", ") +
      "), " +
      "best AS (SELECT r.message_id, " +
      terms.map((_, index) => wordScore(index, bodyLength)).join(" + ") +
      " AS score FROM " +
      s +
      ".compaction_recall r, w " +
      "WHERE r.thread_id = $1 AND r.document @@ w.query " +
      "AND ($10::text[] IS NULL OR coalesce(nullif(r.name, ''), r.role) = ANY($10::text[])) " +
      "AND ($11::text IS NULL OR r.date >= $11::text) AND ($12::text IS NULL OR r.date <= $12::text) " +
      "ORDER BY score DESC, r.checkpoint_id, r.ordinal LIMIT $3) " +
      "SELECT r.message_id, r.role, r.name, r.date, r.checkpoint_id, r.ordinal, r.text, r.message, best.score, " +
      versions +
      " FROM best JOIN " +
      s +
      ".compaction_recall r ON r.thread_id = $1 AND r.message_id = best.message_id " +
      "ORDER BY best.score DESC, r.checkpoint_id, r.ordinal";
    // The body's length as stored; rows written before it was, and an index written before the versions or the
    // length were kept (not written to since: 42703, undefined_column), compute it.
    const computed = "length(ts_filter(r.document, '{d}'))";
    const result = await this.pool
      .query(
        sql({ versions: "r.packed, r.versions AS versions", bodyLength: `coalesce(r.body_length, ${computed})` }),
        parameters,
      )
      .catch(async (error: unknown) => {
        if ((error as { code?: unknown }).code !== "42703") throw error;
        return this.pool.query(sql({ versions: "NULL AS packed, NULL AS versions", bodyLength: computed }), parameters);
      });
    return result.rows.map((row) => ({
      ...toMessage(row),
      ...(typeof row.versions === "string" ? { versions: JSON.parse(row.versions) as RecallVersion[] } : {}),
      score: Number(row.score),
    }));
  }

  /** Who said the thread's messages: each distinct name, else role (recall-index/filter.ts). */
  private async speakers(threadId: string): Promise<string[]> {
    const s = quoteIdentifier(this.schema);
    const result = await this.pool.query(
      `SELECT DISTINCT coalesce(nullif(name, ''), role) AS speaker FROM ${s}.compaction_recall WHERE thread_id = $1`,
      [threadId],
    );
    return result.rows.map((row) => String(row.speaker));
  }

  async neighbours(
    threadId: string,
    at: { checkpointId: string; ordinal: number },
    count: number,
  ): Promise<{ before: RecallMessage[]; after: RecallMessage[] }> {
    if (count === 0) return { before: [], after: [] };
    const s = quoteIdentifier(this.schema);
    // The message columns as they are (an index written before the packed layout, not written to since, has no
    // `packed` column: 42703, undefined_column, and its rows' messages are read as the JSON of the row).
    const around = (columns: string) =>
      Promise.all([
        this.pool.query(
          "SELECT message_id, role, name, date, checkpoint_id, ordinal, text, " +
            MESSAGE_COLUMNS[columns]! +
            " FROM " +
            s +
            ".compaction_recall r WHERE thread_id = $1 AND (checkpoint_id, ordinal) < ($2, $3) ORDER BY checkpoint_id DESC, ordinal DESC LIMIT $4",
          [threadId, at.checkpointId, at.ordinal, count],
        ),
        this.pool.query(
          "SELECT message_id, role, name, date, checkpoint_id, ordinal, text, " +
            MESSAGE_COLUMNS[columns]! +
            " FROM " +
            s +
            ".compaction_recall r WHERE thread_id = $1 AND (checkpoint_id, ordinal) > ($2, $3) ORDER BY checkpoint_id, ordinal LIMIT $4",
          [threadId, at.checkpointId, at.ordinal, count],
        ),
      ]);
    const [before, after] = await around("stored").catch((error: unknown) => {
      if ((error as { code?: unknown }).code !== "42703") throw error;
      return around("any");
    });
    const plain = (row: Record<string, unknown>) => {
      const { ordinal: _ordinal, ...message } = toMessage(row);
      return message;
    };
    return { before: before.rows.reverse().map(plain), after: after.rows.map(plain) };
  }

  async entries(threadId: string): Promise<RecallEntry[]> {
    if (!(await this.present())) return [];
    const s = quoteIdentifier(this.schema);
    const result = await this.pool.query(
      // to_jsonb: an index written before the transcript or its versions (columns missing) reads as entries without them.
      `SELECT message_id, role, name, date, checkpoint_id, ordinal, text, to_jsonb(r) ->> 'message' AS message, to_jsonb(r) ->> 'packed' AS packed, to_jsonb(r) ->> 'previous_id' AS previous_id,
         to_jsonb(r) ->> 'versions' AS versions FROM ${s}.compaction_recall r WHERE thread_id = $1 ORDER BY checkpoint_id, ordinal`,
      [threadId],
    );
    return result.rows.map(entryOfRow);
  }

  /** Which of `messageIds` the transcript holds with their stored message, and the texts of their versions. */
  async recorded(threadId: string, messageIds: readonly string[]): Promise<Map<string, Set<string>>> {
    if (messageIds.length === 0 || !(await this.present())) return new Map();
    const s = quoteIdentifier(this.schema);
    const result = await this.pool.query(
      `SELECT message_id, role, checkpoint_id, ordinal, text, to_jsonb(r) ->> 'message' AS message, to_jsonb(r) ->> 'packed' AS packed, to_jsonb(r) ->> 'versions' AS versions FROM ${s}.compaction_recall r
       WHERE thread_id = $1 AND message_id = ANY($2::text[]) AND (to_jsonb(r) ->> 'message' IS NOT NULL OR to_jsonb(r) ->> 'packed' IS NOT NULL)`,
      [threadId, [...messageIds]],
    );
    return new Map(result.rows.map((row) => [String(row.message_id), new Set(versionForms(entryOfRow(row)))]));
  }

  async record(changes: RecallChanges): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      await ensurePostgresRecall(client, this.schema);
      await applyPostgresRecall(client, this.schema, this.language, changes);
    });
  }

  async replaceThread(threadId: string, entries: readonly RecallEntry[]): Promise<void> {
    const s = quoteIdentifier(this.schema);
    await inTransaction(this.pool, async (client) => {
      await ensurePostgresRecall(client, this.schema);
      await client.query(`DELETE FROM ${s}.compaction_recall WHERE thread_id = $1`, [threadId]);
      await client.query(`DELETE FROM ${s}.compaction_recall_terms WHERE thread_id = $1`, [threadId]);
      // The thread's record goes with its rows: they are written again in this index's configuration.
      await client.query(`DELETE FROM ${s}.compaction_recall_threads WHERE thread_id = $1`, [threadId]);
      await applyPostgresRecall(client, this.schema, this.language, { threadId, add: [...entries] });
    });
  }
}

/**
 * The columns of query word `index` in the search's one-row `w`, from parameters $at to $at+4: its tsquery at any
 * weight, in the text (D), the name and day (B) and the previous message (C), and its inverse document frequency.
 * Numbers only: no input reaches the statement's text.
 */
function wordColumns(index: number, at: number): string {
  const query = (offset: number, name: string) =>
    "to_tsquery($4::regconfig, $" + String(at + offset) + ") AS " + name + String(index);
  return [
    query(0, "a"),
    query(1, "b"),
    query(2, "l"),
    query(3, "c"),
    "$" + String(at + 4) + "::float8 AS i" + String(index),
  ].join(", ");
}

/** Query word `index`'s share of a row's BM25 (bm25.ts), 0 for a row without the word. */
function wordScore(index: number, bodyLength: string): string {
  const column = (name: string) => "w." + name + String(index);
  const body =
    "CASE WHEN r.document @@ " +
    column("b") +
    " THEN ($5::float8 + 1) / (1 + $5::float8 * (1 - $6::float8 + $6::float8 * " +
    bodyLength +
    " / $7::float8)) ELSE 0 END";
  const label = "CASE WHEN r.document @@ " + column("l") + " THEN $8::float8 ELSE 0 END";
  const context = "CASE WHEN r.document @@ " + column("c") + " THEN $9::float8 ELSE 0 END";
  return (
    "(CASE WHEN r.document @@ " +
    column("a") +
    " THEN " +
    column("i") +
    " * ((" +
    body +
    ") + (" +
    label +
    ") + (" +
    context +
    ")) ELSE 0 END)"
  );
}
