/**
 * The semantic ranking's vectors in a Postgres schema (recall-index/vectors.ts), and the catalog lookup the recall
 * index uses to tell whether its tables exist.
 */
import { quoteIdentifier } from "../sql.js";
import {
  inTransaction,
  postgresVectorsSchemaSql,
  type PostgresConnector,
  type PostgresQueryable,
} from "./postgres-setup.js";
import { vectorBytes, vectorFromBytes, type RecallVectors, type StoredVector } from "./vectors.js";

/** A pg Pool: queries, and connections for a transaction. */
export interface PostgresPool extends PostgresQueryable, PostgresConnector {}

export /** Whether `schema` has the table `table` (one catalog lookup). */
async function hasTable(client: PostgresQueryable, schema: string, table: string): Promise<boolean> {
  const result = await client.query(`SELECT to_regclass($1) AS name`, [`${quoteIdentifier(schema)}.${table}`]);
  return result.rows[0]?.name !== null && result.rows[0]?.name !== undefined;
}

/** The semantic ranking's vectors in the schema (recall-index/vectors.ts), their table created by the first write. */
export class PostgresVectors implements RecallVectors {
  constructor(
    private readonly pool: PostgresPool,
    private readonly schema: string,
  ) {}

  /** Whether the vectors' table exists (a role that may not create tables needs it made by setupPostgresRecall). */
  private async present(client: PostgresQueryable = this.pool): Promise<boolean> {
    return hasTable(client, this.schema, "compaction_recall_vectors");
  }

  async read(threadId: string, model: string): Promise<StoredVector[]> {
    const s = quoteIdentifier(this.schema);
    if (!(await this.present())) return [];
    const result = await this.pool.query(
      `SELECT message_id, hash, vector FROM ${s}.compaction_recall_vectors WHERE thread_id = $1 AND model = $2`,
      [threadId, model],
    );
    return result.rows.map((row) => ({
      messageId: String(row.message_id),
      hash: String(row.hash),
      vector: vectorFromBytes(row.vector as Buffer),
    }));
  }

  async write(threadId: string, model: string, vectors: readonly StoredVector[]): Promise<void> {
    if (vectors.length === 0) return;
    const s = quoteIdentifier(this.schema);
    await inTransaction(this.pool, async (client) => {
      if (!(await this.present(client))) {
        // Concurrent first writers: the advisory lock serializes the CREATE ... IF NOT EXISTS.
        await client.query(
          "SELECT pg_advisory_xact_lock(hashtextextended('langgraph-compaction:recall-schema', 7243))",
        );
        await client.query(postgresVectorsSchemaSql(this.schema));
      }
      await client.query(
        `INSERT INTO ${s}.compaction_recall_vectors (thread_id, model, message_id, hash, vector)
         SELECT $1, $2, v.message_id, v.hash, v.vector FROM unnest($3::text[], $4::text[], $5::bytea[]) AS v(message_id, hash, vector)
         ON CONFLICT (thread_id, model, message_id) DO UPDATE SET hash = excluded.hash, vector = excluded.vector`,
        [
          threadId,
          model,
          vectors.map((vector) => vector.messageId),
          vectors.map((vector) => vector.hash),
          vectors.map((vector) => vectorBytes(vector.vector)),
        ],
      );
    });
  }
}
