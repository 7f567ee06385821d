/**
 * Writing the Postgres recall index: the rows of a write's recall changes and the thread's word counts, inside the
 * caller's transaction (the compare-and-swap's, a prune's backfill). The index and its search: postgres-index.ts.
 */
import { packMessage, textOfMessage, unpackMessage } from "./packed-message.js";
import { quoteIdentifier } from "../sql.js";
import { recallLabel } from "./entries.js";
import { mergeEntries } from "./versions.js";
import { wordsOf } from "../../messages/words.js";
import { ensurePostgresRecall, type PostgresQueryable } from "./postgres-setup.js";
import { indexTerms } from "../../messages/words.js";
import type { RecallChanges, RecallEntry, RecallMessage } from "./types.js";

/** Per word, how many of the texts (each a list of its words) hold it, times `sign`, added into `counts`. */
function countWords(counts: Map<string, number>, texts: ReadonlyArray<readonly string[]>, sign: 1 | -1): void {
  // The index of the last text that counted a word: a word repeated in one text counts once, without a set per text.
  const lastText = new Map<string, number>();
  texts.forEach((words, index) => {
    for (const word of words) {
      if (lastText.get(word) === index) continue;
      lastText.set(word, index);
      counts.set(word, (counts.get(word) ?? 0) + sign);
    }
  });
}

/**
 * Postgres text cannot hold a NUL character (error 22021), which pasted binary or a tool's output can carry: the
 * index stores it as U+FFFD (the checkpoint itself keeps the message as it was).
 */
function pgText<T extends string | null | undefined>(value: T): T {
  return (typeof value === "string" && value.includes("\u0000") ? value.replaceAll("\u0000", "\uFFFD") : value) as T;
}

/**
 * Writes `changes` with `client`, which must be inside the transaction of the write they belong to. `configured`:
 * the writer's text search configuration, used for a thread with none recorded; a thread's rows are all in the one
 * recorded with it (a search parses the query with that one), so a writer configured otherwise — a prune, the script
 * without --language — writes in the thread's, and only a reindex (`replaceThread`) changes it.
 */
export async function applyPostgresRecall(
  client: PostgresQueryable,
  schema: string,
  configured: string,
  { threadId, add: written, move = [] }: RecallChanges,
): Promise<void> {
  // Texts as the index stores them, so a version is compared with what the index holds.
  const given = written.map((entry) => ({ ...entry, text: pgText(entry.text) }));
  if (given.length === 0 && move.length === 0) return;
  await ensurePostgresRecall(client, schema);
  const s = quoteIdentifier(schema);
  const thread = await client.query(
    `SELECT language::text AS language FROM ${s}.compaction_recall_threads WHERE thread_id = $1`,
    [threadId],
  );
  const language = (thread.rows[0]?.language as string | undefined) ?? configured;
  if (move.length > 0) {
    await client.query(
      `UPDATE ${s}.compaction_recall r SET checkpoint_id = m.checkpoint_id, ordinal = m.ordinal, previous_id = m.previous_id
       FROM unnest($2::text[], $3::text[], $4::int[], $5::text[]) AS m(message_id, checkpoint_id, ordinal, previous_id)
       WHERE r.thread_id = $1 AND r.message_id = m.message_id AND r.ordinal < 0`,
      [
        threadId,
        move.map((entry) => pgText(entry.messageId)),
        move.map((entry) => entry.checkpointId),
        move.map((entry) => entry.ordinal),
        move.map((entry) => pgText(entry.previousId ?? null)),
      ],
    );
  }
  if (given.length === 0) return;
  const counts = new Map<string, number>();
  // A message indexed before keeps every version and the place where it first left (versions.ts): its old row goes,
  // with its words from the thread's term statistics, and the merged one is written.
  const gone = await client.query(
    `DELETE FROM ${s}.compaction_recall WHERE thread_id = $1 AND message_id = ANY($2::text[])
     RETURNING message_id, role, name, date, checkpoint_id, ordinal, text, message, packed, previous_id, versions`,
    [threadId, given.map((entry) => pgText(entry.messageId))],
  );
  countWords(
    counts,
    gone.rows.map((row) => wordsOf(entryOfRow(row).text)),
    -1,
  );
  const add = mergeEntries(given, new Map(gone.rows.map((row) => [String(row.message_id), entryOfRow(row)])));
  const words = add.map((entry) => wordsOf(entry.text));
  countWords(counts, words, 1);
  if (add.length > 0) {
    // An entry whose context is the whole text of the entry before it reuses that entry's words (`context_of`, its
    // position): the words are parsed once, not twice.
    const position = new Map<string, number>(
      add.map((entry, index) => [`${entry.checkpointId}\u0000${entry.ordinal}`, index]),
    );
    const contextOf = add.map((entry) => {
      const index = position.get(`${entry.checkpointId}\u0000${entry.ordinal - 1}`);
      return index !== undefined && entry.context !== undefined && add[index]!.text === entry.context
        ? index + 1
        : null;
    });
    // One statement for all rows: the arrays are unnested in step. The self-join on positions fits in memory (for
    // this transaction only), not in temporary files.
    await client.query("SET LOCAL work_mem = '64MB'");
    await client.query(
      `WITH m AS (
         SELECT x.*, to_tsvector($2::regconfig, x.terms) AS body
         FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[], $9::text[], $10::text[], $11::text[], $12::text[], $13::int[], $14::bytea[], $15::text[], $16::text[])
           WITH ORDINALITY AS x(message_id, role, name, date, checkpoint_id, ordinal, text, terms, context, label, context_of, packed, previous_id, versions, position)
       )
       , d AS (
         SELECT m.*, m.body || setweight(to_tsvector($2::regconfig, m.label), 'B')
           || setweight(coalesce(p.body, to_tsvector($2::regconfig, coalesce(m.context, ''))), 'C') AS document
         FROM m LEFT JOIN m p ON p.position = m.context_of
       )
       INSERT INTO ${s}.compaction_recall (thread_id, message_id, role, name, date, checkpoint_id, ordinal, text, packed, previous_id, versions, document, body_length)
       SELECT $1, d.message_id, d.role, d.name, d.date, d.checkpoint_id, d.ordinal, d.text, d.packed, d.previous_id, d.versions,
              d.document, length(ts_filter(d.document, '{d}'))
       FROM d`,
      [
        threadId,
        language,
        add.map((entry) => pgText(entry.messageId)),
        add.map((entry) => entry.role),
        add.map((entry) => pgText(entry.name ?? null)),
        add.map((entry) => entry.date ?? null),
        add.map((entry) => entry.checkpointId),
        add.map((entry) => entry.ordinal),
        // The words are derived from the packed message; only a row without one keeps its text.
        add.map((entry) => (entry.message === undefined ? pgText(entry.text) : "")),
        // Each word once: a search tests whether a message holds a word, never where or how often (positions unused).
        words.map((list) => pgText([...new Set(list)].join(" "))),
        add.map((entry, index) =>
          entry.context && contextOf[index] === null ? pgText(indexTerms(entry.context)) : null,
        ),
        add.map((entry) => pgText(indexTerms(recallLabel(entry)))),
        contextOf,
        add.map((entry) => (entry.message === undefined ? null : packMessage(entry.message))),
        add.map((entry) => pgText(entry.previousId ?? null)),
        add.map((entry) => (entry.versions ? pgText(JSON.stringify(entry.versions)) : null)),
      ],
    );
  }
  await client.query(
    `INSERT INTO ${s}.compaction_recall_threads (thread_id, language, documents) VALUES ($1, $2::regconfig, $3)
     ON CONFLICT (thread_id) DO UPDATE SET documents = ${s}.compaction_recall_threads.documents + EXCLUDED.documents`,
    [threadId, language, add.length - gone.rows.length],
  );
  const changed = [...counts].filter(([, delta]) => delta !== 0);
  if (changed.length === 0) return;
  await client.query(
    `INSERT INTO ${s}.compaction_recall_terms (thread_id, term, documents) SELECT $1, x.term, x.delta FROM unnest($2::text[], $3::int[]) AS x(term, delta)
     ON CONFLICT (thread_id, term) DO UPDATE SET documents = ${s}.compaction_recall_terms.documents + EXCLUDED.documents`,
    [threadId, changed.map(([term]) => pgText(term)), changed.map(([, delta]) => delta)],
  );
  if (changed.some(([, delta]) => delta < 0))
    await client.query(`DELETE FROM ${s}.compaction_recall_terms WHERE thread_id = $1 AND documents <= 0`, [threadId]);
}

/** The message a row holds: packed (a Buffer, or `\x…` hex through to_jsonb), or JSON text in a row written before. */
export function storedMessage(row: Record<string, unknown>): string | undefined {
  return (
    unpackMessage(row.packed ?? undefined) ??
    (typeof row.message === "string" && row.message !== "" ? row.message : undefined)
  );
}

/** A row's text: as stored, or derived from its packed message (as the index stores texts: `pgText`). */
export function rowText(row: Record<string, unknown>, message = storedMessage(row)): string {
  const text = String(row.text ?? "");
  return text === "" && message !== undefined ? pgText(textOfMessage(message)) : text;
}

/** A row of the index as the entry it holds. */
export function entryOfRow(row: Record<string, unknown>): RecallEntry {
  const optional = (key: string, column: string) =>
    typeof row[column] === "string" && row[column] !== "" ? { [key]: row[column] as string } : {};
  const message = storedMessage(row);
  return {
    messageId: String(row.message_id),
    role: row.role as RecallEntry["role"],
    checkpointId: String(row.checkpoint_id),
    ordinal: Number(row.ordinal),
    text: rowText(row, message),
    ...optional("name", "name"),
    ...optional("date", "date"),
    ...(message ? { message } : {}),
    ...optional("previousId", "previous_id"),
    ...(typeof row.versions === "string" ? { versions: JSON.parse(row.versions) as RecallEntry["versions"] } : {}),
  };
}

/** A row as a message of a search: its text read from its message where the row keeps none. */
export function toMessage(row: Record<string, unknown>): RecallMessage & { ordinal: number } {
  return {
    messageId: String(row.message_id),
    role: row.role as RecallEntry["role"],
    ...(row.name ? { name: String(row.name) } : {}),
    text: rowText(row),
    ...(row.date ? { date: String(row.date) } : {}),
    checkpointId: String(row.checkpoint_id),
    ordinal: Number(row.ordinal),
  };
}

/** The message columns a read selects: as stored, or through the row's JSON for an index without every column. */
export const MESSAGE_COLUMNS: Record<string, string> = {
  stored: "r.message, r.packed",
  any: "to_jsonb(r) ->> 'message' AS message, to_jsonb(r) ->> 'packed' AS packed",
};
