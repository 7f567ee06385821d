/** The backend of a PostgresSaver: SQL over its tables, the recall index in its schema. */
import type { Backend } from "./backend.js";
import { PostgresRecall, validateLanguage, type PostgresPool } from "./recall-index/postgres-index.js";
import { createRootIdIndex } from "./root-id-index.js";
import { quoteIdentifier } from "./sql.js";
import { LIBRARY_WRITER } from "./replacement-checkpoint.js";
import { PostgresWriter, type PostgresSaverInternals } from "./swap-postgres.js";
import { readPostgresTuple } from "./read-tuple-postgres.js";

export function postgresBackend(saver: PostgresSaverInternals, recallLanguage: string): Backend {
  const pool = saver.pool as unknown as PostgresPool;
  const schema = saver.options.schema;
  const s = quoteIdentifier(schema);
  let indexed: Promise<void> | undefined;
  return {
    name: "postgres",
    writer: new PostgresWriter(saver, recallLanguage),
    recall: new PostgresRecall(pool, schema, validateLanguage(recallLanguage)),
    queueDatabase: { executeSql: (text, values) => pool.query(text, values as unknown[]), scope: schema },
    prunable: true,
    readTuple: (threadId, checkpointId) => readPostgresTuple(saver, threadId, checkpointId),
    // The prune's code loads at the first prune: a store that never prunes never loads it.
    prune: async (threadId, plan) =>
      (await import("./prune-postgres.js")).prunePostgres(
        pool,
        schema,
        validateLanguage(recallLanguage),
        threadId,
        plan,
      ),
    pruneTables: async () => (await import("./prune-tables-postgres.js")).postgresPruneTables(pool, schema),
    namespacesBefore: async (threadId, before) => {
      const result = await pool.query(
        `SELECT checkpoint_ns FROM ${s}.checkpoints WHERE thread_id = $1 AND checkpoint_ns <> '' GROUP BY checkpoint_ns HAVING max(checkpoint_id) < $2`,
        [threadId, before],
      );
      return result.rows.map((row) => String(row.checkpoint_ns));
    },
    changedSince: async (cursor) => {
      // An index on the heads' ids (created once, without blocking writes) answers a pass where nothing changed
      // by reading no row of a thread.
      indexed ??= createRootIdIndex(pool, schema).then(
        (built) => {
          // Another worker holds the build: this pass goes without the index, a later one looks again.
          if (!built) indexed = undefined;
        },
        (error: unknown) => {
          indexed = undefined;
          throw error;
        },
      );
      await indexed;
      const result = await pool.query(
        `SELECT thread_id, max(checkpoint_id) AS head FROM ${s}.checkpoints WHERE checkpoint_ns = '' AND checkpoint_id > $1 GROUP BY thread_id`,
        [cursor],
      );
      return result.rows.map((row) => ({ threadId: String(row.thread_id), headCheckpointId: String(row.head) }));
    },
    strandedWrites: async (cursor) => {
      const result = await pool.query(
        `SELECT c.thread_id, c.checkpoint_id FROM ${s}.checkpoints c
         WHERE c.checkpoint_ns = '' AND c.checkpoint_id > $1
           AND (c.metadata->>'writtenBy' = $2 OR jsonb_typeof(c.metadata->'compaction') = 'object'
             OR jsonb_typeof(c.metadata->'restore') = 'object')
           AND NOT EXISTS (SELECT 1 FROM ${s}.checkpoints d WHERE d.thread_id = c.thread_id AND d.checkpoint_ns = '' AND d.parent_checkpoint_id = c.checkpoint_id)
           AND c.checkpoint_id < (SELECT max(h.checkpoint_id) FROM ${s}.checkpoints h WHERE h.thread_id = c.thread_id AND h.checkpoint_ns = '')`,
        [cursor, LIBRARY_WRITER],
      );
      return result.rows.map((row) => ({
        threadId: String(row.thread_id),
        headCheckpointId: String(row.checkpoint_id),
      }));
    },
    headId: async (threadId) => {
      const result = await pool.query(
        `SELECT checkpoint_id FROM ${s}.checkpoints WHERE thread_id = $1 AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1`,
        [threadId],
      );
      return result.rows[0] ? String(result.rows[0].checkpoint_id) : undefined;
    },
    storage: async (threadId) => {
      const result = await pool.query(
        `SELECT (SELECT count(*) FROM ${s}.checkpoints WHERE thread_id = $1) AS checkpoints,
                (SELECT count(*) FROM ${s}.checkpoints WHERE thread_id = $1 AND checkpoint_ns <> '') AS subgraph_checkpoints,
                (SELECT coalesce(sum(pg_column_size(checkpoint) + pg_column_size(metadata)), 0) FROM ${s}.checkpoints WHERE thread_id = $1) AS checkpoint_bytes,
                (SELECT coalesce(sum(octet_length(blob)), 0) FROM ${s}.checkpoint_blobs WHERE thread_id = $1) AS blob_bytes,
                (SELECT coalesce(sum(octet_length(blob)), 0) FROM ${s}.checkpoint_writes WHERE thread_id = $1) AS write_bytes`,
        [threadId],
      );
      const row = result.rows[0] ?? {};
      return {
        checkpoints: Number(row.checkpoints),
        subgraphCheckpoints: Number(row.subgraph_checkpoints),
        checkpointBytes: Number(row.checkpoint_bytes) + Number(row.blob_bytes),
        writeBytes: Number(row.write_bytes),
      };
    },
    listThreads: async () => {
      // The head of each thread (the highest id), its size with the blobs of the versions it names.
      const result = await pool.query(
        `SELECT h.thread_id, h.checkpoint_id, h.checkpoints,
                pg_column_size(h.checkpoint) + coalesce((SELECT sum(octet_length(b.blob)) FROM ${s}.checkpoint_blobs b
                  WHERE b.thread_id = h.thread_id AND b.checkpoint_ns = '' AND b.version = h.checkpoint->'channel_versions'->>b.channel), 0) AS bytes
         FROM (SELECT DISTINCT ON (c.thread_id) c.thread_id, c.checkpoint_id, c.checkpoint,
                      count(*) OVER (PARTITION BY c.thread_id) AS checkpoints
               FROM ${s}.checkpoints c WHERE c.checkpoint_ns = '' ORDER BY c.thread_id, c.checkpoint_id DESC) h
         ORDER BY h.thread_id`,
      );
      return result.rows.map((row) => ({
        threadId: String(row.thread_id),
        checkpoints: Number(row.checkpoints),
        headCheckpointId: String(row.checkpoint_id),
        headBytes: Number(row.bytes),
      }));
    },
  };
}
