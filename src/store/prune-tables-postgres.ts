/** What a prune's plan reads of a Postgres schema's tables (prune-tables.ts says how lists are compared). */
import { INTERRUPT } from "@langchain/langgraph-checkpoint";
import type { PostgresPool } from "./recall-index/postgres-index.js";
import type { PruneTables } from "./prune-plan.js";
import { UNDEFINED_FIELD } from "./prune-tables.js";
import { quoteIdentifier } from "./sql.js";

export function postgresPruneTables(pool: PostgresPool, schema: string): Omit<PruneTables, "namespacesBefore"> {
  const s = quoteIdentifier(schema);
  return {
    async rootCheckpoints(threadId) {
      const result = await pool.query(
        `SELECT checkpoint_id FROM ${s}.checkpoints WHERE thread_id = $1 AND checkpoint_ns = '' ORDER BY checkpoint_id`,
        [threadId],
      );
      return result.rows.map((row) => String(row.checkpoint_id));
    },
    async interruptWaiting(threadId, ids) {
      const sql = `SELECT 1 FROM ${s}.checkpoint_writes WHERE thread_id = $1 AND checkpoint_ns = '' AND channel = $2 AND checkpoint_id = ANY($3::text[]) LIMIT 1`;
      return (await pool.query(sql, [threadId, INTERRUPT, ids])).rows.length > 0;
    },
    async isPrefixOf(threadId, checkpointId, keptId) {
      // The blob of each checkpoint's messages version, as text without its undefined fields; the comparison runs
      // in the server.
      const result = await pool.query(
        `WITH lists AS (
           SELECT c.checkpoint_id, c.checkpoint -> 'channel_versions' ->> 'messages' AS version, b.type,
             CASE WHEN b.type = 'json' THEN regexp_replace(convert_from(b.blob, 'UTF8'), $4, '', 'g') END AS list
           FROM ${s}.checkpoints c LEFT JOIN ${s}.checkpoint_blobs b ON b.thread_id = c.thread_id AND b.checkpoint_ns = c.checkpoint_ns
             AND b.channel = 'messages' AND b.version = c.checkpoint -> 'channel_versions' ->> 'messages'
           WHERE c.thread_id = $1 AND c.checkpoint_ns = '' AND c.checkpoint_id IN ($2, $3))
         SELECT a.version IS NULL AS unwritten,
           a.type = 'json' AND k.type = 'json' AND left(a.list, 1) = '[' AND left(k.list, 1) = '[' AS readable,
           a.version = k.version OR a.list = '[]' OR (length(k.list) >= length(a.list)
             AND left(k.list, length(a.list) - 1) = left(a.list, length(a.list) - 1)
             AND substr(k.list, length(a.list), 1) IN (',', ']')) AS prefix
         FROM lists a, lists k WHERE a.checkpoint_id = $2 AND k.checkpoint_id = $3`,
        [threadId, checkpointId, keptId, UNDEFINED_FIELD.source],
      );
      const row = result.rows[0];
      if (!row) return undefined;
      if (row.unwritten === true) return true;
      return row.readable === true ? row.prefix === true : undefined;
    },
  };
}
