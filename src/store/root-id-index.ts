/**
 * The index behind `changedSince` on Postgres: built without blocking writes (CONCURRENTLY), by one worker at a time
 * (two concurrent builds of one index deadlock, and so does a build beside a session waiting on a lock: a worker that
 * does not get the lock at once skips the build, and its query runs without the index this time), and built again if
 * an earlier build was cut short (an invalid index is never used, and IF NOT EXISTS would keep it). Resolves to
 * whether the index is there.
 */
import type { PostgresPool } from "./recall-index/postgres-index.js";
import { quoteIdentifier } from "./sql.js";

export async function createRootIdIndex(pool: PostgresPool, schema: string): Promise<boolean> {
  const s = quoteIdentifier(schema);
  const client = await pool.connect();
  const key = `${schema}.compaction_root_checkpoint_ids`;
  let locked = false;
  try {
    locked = Boolean(
      (await client.query(`SELECT pg_try_advisory_lock(hashtext($1)) AS locked`, [key])).rows[0]?.locked,
    );
    if (!locked) return false;
    const found = await client.query(
      `SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relname = 'compaction_root_checkpoint_ids' AND n.nspname = $1`,
      [schema],
    );
    const valid = found.rows[0]?.indisvalid as boolean | undefined;
    if (valid === false) await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${s}.compaction_root_checkpoint_ids`);
    if (valid !== true)
      await client.query(
        `CREATE INDEX CONCURRENTLY IF NOT EXISTS compaction_root_checkpoint_ids ON ${s}.checkpoints (checkpoint_id) WHERE checkpoint_ns = ''`,
      );
    return true;
  } finally {
    if (locked) await client.query(`SELECT pg_advisory_unlock(hashtext($1))`, [key]).catch(() => undefined);
    client.release();
  }
}
