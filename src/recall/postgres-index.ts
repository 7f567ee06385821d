/**
 * The recall index in a Postgres checkpoint database: a table of indexed messages with a `tsvector` document and a
 * GIN index, ranked with `ts_rank_cd`.
 *
 * - The text search configuration is an option (`language`, default `simple`: any language is cut into words, none
 *   is stemmed; `english` stems English). It is recorded per thread, so a search uses the configuration the thread's
 *   rows were written with.
 * - The document is the message's words (recall/query.ts: `indexTerms`) at weight A, its name and day at weight B and the
 *   previous message's words at weight C (see sqlite-index.ts for why).
 * - Every value reaches Postgres as a bound parameter; a query is a tsquery of quoted lexemes (query.ts), so no
 *   operator can be spelled by the user.
 * - Rows are written by `applyPostgresRecall` inside the caller's transaction (the compare-and-swap's).
 */
import { quoteIdentifier } from "../checkpoint/sql.js";
import { invalidArgument } from "../errors.js";
import { recallLabel } from "./entries.js";
import { indexTerms, tsqueryText } from "./query.js";
import type { RecallChanges, RecallEntry, RecallMessage } from "./types.js";

export const DEFAULT_POSTGRES_LANGUAGE = "simple";

export interface PostgresQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
}

export interface PostgresPool extends PostgresQueryable {
  connect(): Promise<PostgresQueryable & { release(): void }>;
}

/** A text search configuration name: letters, digits and underscores (it is passed as a regconfig value). */
export function validateLanguage(language: unknown): string {
  if (typeof language !== "string" || !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(language)) {
    throw invalidArgument("recall.language", language, 'a Postgres text search configuration such as "simple" or "english"');
  }
  return language;
}

function schemaSql(schema: string): string {
  const s = quoteIdentifier(schema);
  return `
CREATE TABLE IF NOT EXISTS ${s}.compaction_recall (
  thread_id TEXT NOT NULL,
  message_id TEXT NOT NULL,
  role TEXT NOT NULL,
  name TEXT,
  date TEXT,
  checkpoint_id TEXT NOT NULL,
  ordinal INTEGER NOT NULL,
  text TEXT NOT NULL,
  document TSVECTOR NOT NULL,
  PRIMARY KEY (thread_id, message_id)
);
CREATE INDEX IF NOT EXISTS compaction_recall_document ON ${s}.compaction_recall USING GIN (document);
CREATE INDEX IF NOT EXISTS compaction_recall_order ON ${s}.compaction_recall (thread_id, checkpoint_id, ordinal);
CREATE TABLE IF NOT EXISTS ${s}.compaction_recall_threads (
  thread_id TEXT PRIMARY KEY,
  language REGCONFIG NOT NULL
);`;
}

/**
 * Creates the index tables if the database lacks them. Checked every time (one catalog lookup): DDL is
 * transactional in Postgres, so tables created by a write that rolled back are gone again.
 */
export async function ensurePostgresRecall(client: PostgresQueryable, schema: string): Promise<void> {
  const found = await client.query(`SELECT to_regclass($1) AS name`, [`${quoteIdentifier(schema)}.compaction_recall_threads`]);
  if (found.rows[0]?.name) return;
  // Concurrent first writers: the advisory lock serializes the CREATE ... IF NOT EXISTS statements.
  await client.query("SELECT pg_advisory_xact_lock(hashtextextended('langgraph-compaction:recall-schema', 7243))");
  await client.query(schemaSql(schema));
}

/** Writes `changes` with `client`, which must be inside the transaction of the write they belong to. */
export async function applyPostgresRecall(
  client: PostgresQueryable,
  schema: string,
  language: string,
  { threadId, add, remove }: RecallChanges,
): Promise<void> {
  if (add.length === 0 && remove.length === 0) return;
  await ensurePostgresRecall(client, schema);
  const s = quoteIdentifier(schema);
  if (remove.length > 0) await client.query(`DELETE FROM ${s}.compaction_recall WHERE thread_id = $1 AND message_id = ANY($2::text[])`, [threadId, remove]);
  if (add.length === 0) return;
  await client.query(
    `INSERT INTO ${s}.compaction_recall_threads (thread_id, language) VALUES ($1, $2::regconfig) ON CONFLICT (thread_id) DO UPDATE SET language = EXCLUDED.language`,
    [threadId, language],
  );
  // One statement for all rows: the arrays are unnested in step.
  await client.query(
    `INSERT INTO ${s}.compaction_recall (thread_id, message_id, role, name, date, checkpoint_id, ordinal, text, document)
     SELECT $1, m.message_id, m.role, m.name, m.date, m.checkpoint_id, m.ordinal, m.text,
            setweight(to_tsvector($2::regconfig, m.terms), 'A') || setweight(to_tsvector($2::regconfig, m.label), 'B')
              || setweight(to_tsvector($2::regconfig, coalesce(m.context, '')), 'C')
     FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[], $9::text[], $10::text[], $11::text[], $12::text[])
       AS m(message_id, role, name, date, checkpoint_id, ordinal, text, terms, context, label)
     ON CONFLICT (thread_id, message_id) DO UPDATE SET role = EXCLUDED.role, name = EXCLUDED.name, date = EXCLUDED.date,
       checkpoint_id = EXCLUDED.checkpoint_id, ordinal = EXCLUDED.ordinal, text = EXCLUDED.text, document = EXCLUDED.document`,
    [
      threadId,
      language,
      add.map((entry) => entry.messageId),
      add.map((entry) => entry.role),
      add.map((entry) => entry.name ?? null),
      add.map((entry) => entry.date ?? null),
      add.map((entry) => entry.checkpointId),
      add.map((entry) => entry.ordinal),
      add.map((entry) => entry.text),
      add.map((entry) => indexTerms(entry.text)),
      add.map((entry) => (entry.context ? indexTerms(entry.context) : null)),
      add.map((entry) => indexTerms(recallLabel(entry))),
    ],
  );
}

function toMessage(row: Record<string, unknown>): RecallMessage & { ordinal: number } {
  return {
    messageId: String(row.message_id),
    role: row.role as RecallEntry["role"],
    ...(row.name ? { name: String(row.name) } : {}),
    text: String(row.text),
    ...(row.date ? { date: String(row.date) } : {}),
    checkpointId: String(row.checkpoint_id),
    ordinal: Number(row.ordinal),
  };
}

export class PostgresRecall {
  constructor(
    private readonly pool: PostgresPool,
    private readonly schema: string,
    private readonly language: string = DEFAULT_POSTGRES_LANGUAGE,
  ) {}


  private async present(): Promise<boolean> {
    const result = await this.pool.query(`SELECT to_regclass($1) AS name`, [`${quoteIdentifier(this.schema)}.compaction_recall_threads`]);
    return result.rows[0]?.name !== null && result.rows[0]?.name !== undefined;
  }

  async search(threadId: string, terms: readonly string[], limit: number): Promise<Array<RecallMessage & { ordinal: number; score: number }>> {
    if (!(await this.present())) return [];
    const s = quoteIdentifier(this.schema);
    const result = await this.pool.query(
      `WITH q AS (
         SELECT to_tsquery(coalesce((SELECT language FROM ${s}.compaction_recall_threads WHERE thread_id = $1), $4::regconfig), $2) AS query
       )
       SELECT r.message_id, r.role, r.name, r.date, r.checkpoint_id, r.ordinal, r.text, ts_rank_cd(r.document, q.query) AS score
       FROM ${s}.compaction_recall r, q
       WHERE r.thread_id = $1 AND r.document @@ q.query
       ORDER BY score DESC, r.checkpoint_id, r.ordinal LIMIT $3`,
      [threadId, tsqueryText(terms), limit, this.language],
    );
    return result.rows.map((row) => ({ ...toMessage(row), score: Number(row.score) }));
  }

  async neighbours(threadId: string, at: { checkpointId: string; ordinal: number }, count: number): Promise<{ before: RecallMessage[]; after: RecallMessage[] }> {
    if (count === 0) return { before: [], after: [] };
    const s = quoteIdentifier(this.schema);
    const [before, after] = await Promise.all([
      this.pool.query(`SELECT message_id, role, name, date, checkpoint_id, ordinal, text FROM ${s}.compaction_recall WHERE thread_id = $1 AND (checkpoint_id, ordinal) < ($2, $3) ORDER BY checkpoint_id DESC, ordinal DESC LIMIT $4`, [threadId, at.checkpointId, at.ordinal, count]),
      this.pool.query(`SELECT message_id, role, name, date, checkpoint_id, ordinal, text FROM ${s}.compaction_recall WHERE thread_id = $1 AND (checkpoint_id, ordinal) > ($2, $3) ORDER BY checkpoint_id, ordinal LIMIT $4`, [threadId, at.checkpointId, at.ordinal, count]),
    ]);
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
      `SELECT message_id, role, name, date, checkpoint_id, ordinal, text FROM ${s}.compaction_recall WHERE thread_id = $1 ORDER BY checkpoint_id, ordinal`,
      [threadId],
    );
    return result.rows.map(toMessage);
  }

  async replaceThread(threadId: string, entries: readonly RecallEntry[]): Promise<void> {
    const s = quoteIdentifier(this.schema);
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      try {
        await ensurePostgresRecall(client, this.schema);
        await client.query(`DELETE FROM ${s}.compaction_recall WHERE thread_id = $1`, [threadId]);
        await applyPostgresRecall(client, this.schema, this.language, { threadId, add: [...entries], remove: [] });
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      }
    } finally {
      client.release();
    }
  }
}
