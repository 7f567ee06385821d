/**
 * What a prune's plan reads of a store's tables (prune-by-ids.ts), per backend: the root checkpoints' ids, waiting
 * interrupts, and whether one checkpoint's messages list is the start of
 * another's, compared as stored (SQLite's JSON text, Postgres's JSON blobs) without reviving a message.
 *
 * A list is the start of another when the other's text begins with the list's text minus its closing bracket and
 * goes on with a comma or a bracket: a JSON value is self-delimiting, so the elements are the same, in order, to the
 * byte. A checkpoint whose `messages` channel was never written holds nothing (the start of any list).
 */
import { INTERRUPT } from "@langchain/langgraph-checkpoint";
import type { PruneTables } from "./prune-by-ids.js";
import type { PostgresPool } from "./recall-index/postgres-index.js";
import { quoteIdentifier } from "./sql.js";
import type { SqliteDatabase as Database } from "./sqlite-database.js";

export function sqlitePruneTables(db: Database): Omit<PruneTables, "namespacesBefore"> {
  const listOf = `SELECT type, json_type(CAST(checkpoint AS TEXT), '$.channel_versions.messages') AS written,
      json_type(CAST(checkpoint AS TEXT), '$.channel_values.messages') AS kind,
      json_extract(CAST(checkpoint AS TEXT), '$.channel_values.messages') AS list
    FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?`;
  type List = { type: string | null; written: string | null; kind: string | null; list: string | null };
  return {
    async rootCheckpoints(threadId) {
      // A saver that never wrote has no tables yet: the prune of record says the thread is not found.
      if (!db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'writes'`).get()) return undefined;
      const rows = db
        .prepare(
          `SELECT checkpoint_id AS id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id`,
        )
        .all(threadId) as Array<{ id: string }>;
      return rows.map((row) => row.id);
    },
    async interruptWaiting(threadId, ids) {
      const sql = `SELECT 1 FROM writes WHERE thread_id = ? AND checkpoint_ns = '' AND channel = ? AND checkpoint_id IN (SELECT value FROM json_each(?)) LIMIT 1`;
      return db.prepare(sql).get(threadId, INTERRUPT, JSON.stringify(ids)) !== undefined;
    },
    async isPrefixOf(threadId, checkpointId, keptId) {
      const statement = db.prepare(listOf);
      const start = statement.get(threadId, checkpointId) as List | undefined;
      const whole = statement.get(threadId, keptId) as List | undefined;
      if (start?.type !== "json" || whole?.type !== "json") return undefined;
      if (start.written === null && start.kind === null) return true;
      if (start.kind !== "array" || whole.kind !== "array") return undefined;
      return startsWith(whole.list!, start.list!);
    },
  };
}

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
      // The blob of each checkpoint's messages version; the comparison runs in the server, on the bytes.
      const result = await pool.query(
        `WITH lists AS (
           SELECT c.checkpoint_id, c.checkpoint -> 'channel_versions' ->> 'messages' AS version, b.type, b.blob
           FROM ${s}.checkpoints c LEFT JOIN ${s}.checkpoint_blobs b ON b.thread_id = c.thread_id AND b.checkpoint_ns = c.checkpoint_ns
             AND b.channel = 'messages' AND b.version = c.checkpoint -> 'channel_versions' ->> 'messages'
           WHERE c.thread_id = $1 AND c.checkpoint_ns = '' AND c.checkpoint_id IN ($2, $3))
         SELECT a.version IS NULL AS unwritten,
           a.type = 'json' AND k.type = 'json' AND get_byte(a.blob, 0) = 91 AND get_byte(k.blob, 0) = 91 AS readable,
           a.version = k.version OR octet_length(a.blob) = 2 OR (octet_length(k.blob) >= octet_length(a.blob)
             AND substring(k.blob FROM 1 FOR octet_length(a.blob) - 1) = substring(a.blob FROM 1 FOR octet_length(a.blob) - 1)
             AND get_byte(k.blob, octet_length(a.blob) - 1) IN (44, 93)) AS prefix
         FROM lists a, lists k WHERE a.checkpoint_id = $2 AND k.checkpoint_id = $3`,
        [threadId, checkpointId, keptId],
      );
      const row = result.rows[0];
      if (!row) return undefined;
      if (row.unwritten === true) return true;
      return row.readable === true ? row.prefix === true : undefined;
    },
  };
}

/** Whether the JSON list `whole` begins with the elements of the JSON list `start`, as written. */
function startsWith(whole: string, start: string): boolean {
  if (start === "[]") return whole.startsWith("[");
  const open = start.slice(0, -1);
  if (!whole.startsWith(open)) return false;
  const next = whole[open.length];
  return next === "," || next === "]";
}
