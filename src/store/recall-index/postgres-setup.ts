/**
 * The recall index's tables on Postgres. A compaction creates them on its first write; a deployment whose
 * application role may not run DDL creates them ahead of time with `setupPostgresRecall` (or runs
 * `postgresRecallSchemaSql` in its migrations), as PostgresSaver's own tables are made by `setup()`.
 */
import { withConnection, type PostgresConnector } from "../pg-connection.js";
import { CompactionError } from "../../errors.js";
import { quoteIdentifier } from "../sql.js";
import { packMessage } from "./packed-message.js";

export interface PostgresQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
}

/**
 * The DDL of the recall index in `schema`, e.g. for a migration tool. Idempotent (CREATE ... IF NOT EXISTS), and it
 * brings an index made by an earlier release up to date: the columns added since (NULL in old rows; a search
 * computes what they hold).
 */
export function postgresRecallSchemaSql(schema = "public"): string {
  const s = quoteIdentifier(schema);
  return (
    `
CREATE TABLE IF NOT EXISTS ${s}.compaction_recall (
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
  document TSVECTOR NOT NULL,
  body_length INTEGER,
  packed BYTEA,
  PRIMARY KEY (thread_id, message_id)
);
ALTER TABLE ${s}.compaction_recall ADD COLUMN IF NOT EXISTS message TEXT, ADD COLUMN IF NOT EXISTS previous_id TEXT,
  ADD COLUMN IF NOT EXISTS versions TEXT, ADD COLUMN IF NOT EXISTS body_length INTEGER,
  ADD COLUMN IF NOT EXISTS packed BYTEA;
CREATE INDEX IF NOT EXISTS compaction_recall_document ON ${s}.compaction_recall USING GIN (document);
CREATE INDEX IF NOT EXISTS compaction_recall_order ON ${s}.compaction_recall (thread_id, checkpoint_id, ordinal);
CREATE TABLE IF NOT EXISTS ${s}.compaction_recall_threads (
  thread_id TEXT PRIMARY KEY,
  language REGCONFIG NOT NULL,
  documents INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS ${s}.compaction_recall_terms (
  thread_id TEXT NOT NULL,
  term TEXT NOT NULL,
  documents INTEGER NOT NULL,
  PRIMARY KEY (thread_id, term)
);` + postgresVectorsSchemaSql(schema)
  );
}

/**
 * The table of the semantic ranking's vectors (recall-index/vectors.ts; also in postgresRecallSchemaSql): created by
 * its first write, or with the others by `setupPostgresRecall`. Compactions never need it.
 */
export function postgresVectorsSchemaSql(schema = "public"): string {
  const s = quoteIdentifier(schema);
  return `
CREATE TABLE IF NOT EXISTS ${s}.compaction_recall_vectors (
  thread_id TEXT NOT NULL,
  model TEXT NOT NULL,
  message_id TEXT NOT NULL,
  hash TEXT NOT NULL,
  vector BYTEA NOT NULL,
  PRIMARY KEY (thread_id, model, message_id)
);`;
}

/**
 * Creates the index tables if the database lacks them. Checked every time (one catalog lookup): DDL is
 * transactional in Postgres, so tables created by a write that rolled back are gone again.
 */
export async function ensurePostgresRecall(client: PostgresQueryable, schema: string): Promise<void> {
  // The packed column is the newest part of the schema: present, every table is.
  const found = await client.query(
    `SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'compaction_recall' AND column_name = 'packed'`,
    [schema],
  );
  if (found.rows.length > 0) return;
  // Concurrent first writers: the advisory lock serializes the CREATE ... IF NOT EXISTS statements.
  await client.query("SELECT pg_advisory_xact_lock(hashtextextended('langgraph-compaction:recall-schema', 7243))");
  await client.query(postgresRecallSchemaSql(schema)).catch((error: unknown) => {
    if ((error as { code?: unknown }).code !== "42501") throw error;
    // A role that may not run DDL, and tables missing or made by an earlier release: say how to make them.
    throw new CompactionError({
      code: "STORE_READ_ONLY",
      value: schema,
      message: `the recall index's tables in schema ${JSON.stringify(schema)} are missing or older than this release's, and this role may not change them (42501: ${(error as Error).message}): run setupPostgresRecall(pool, { schema: ${JSON.stringify(schema)} }) from langgraph-compaction/postgres, or postgresRecallSchemaSql in your migrations, as a role that may. Nothing was written.`,
      cause: error,
    });
  });
  await packRows(client, schema);
}

/**
 * Creates the recall index's tables in `schema` (default "public") if they are missing, in one transaction on a
 * connection of `pool` (a pg Pool). Idempotent.
 */
export async function setupPostgresRecall(
  pool: PostgresConnector,
  { schema = "public" }: { schema?: string } = {},
): Promise<void> {
  await inTransaction(pool, async (client) => {
    await ensurePostgresRecall(client, schema);
    await client.query(postgresVectorsSchemaSql(schema));
  });
}

export type { PostgresConnector };

/** Runs `work` in one transaction on a connection of `pool`: committed when it resolves, rolled back when it throws. */
export async function inTransaction<T>(
  pool: PostgresConnector,
  work: (client: PostgresQueryable) => Promise<T>,
): Promise<T> {
  return withConnection(pool, async (client) => {
    await client.query("BEGIN");
    try {
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    }
  });
}

/** Rows packed per statement when a schema written before the packed layout is brought to it. */
const PACK_BATCH = 500;

/**
 * Rows written before messages were packed (their message as JSON text, their words in `text` a second time):
 * rewritten with the message packed (packed-message.ts) and no text, in the caller's transaction. Rows without a
 * message keep their text: it is all they hold.
 */
async function packRows(client: PostgresQueryable, schema: string): Promise<void> {
  const s = quoteIdentifier(schema);
  for (;;) {
    const old = await client.query(
      `SELECT thread_id, message_id, message FROM ${s}.compaction_recall WHERE packed IS NULL AND message IS NOT NULL LIMIT $1`,
      [PACK_BATCH],
    );
    if (old.rows.length === 0) return;
    await client.query(
      `UPDATE ${s}.compaction_recall r SET packed = x.packed, message = NULL, text = ''
       FROM unnest($1::text[], $2::text[], $3::bytea[]) AS x(thread_id, message_id, packed)
       WHERE r.thread_id = x.thread_id AND r.message_id = x.message_id`,
      [
        old.rows.map((row) => String(row.thread_id)),
        old.rows.map((row) => String(row.message_id)),
        old.rows.map((row) => packMessage(String(row.message))),
      ],
    );
  }
}
