/**
 * A prune of a Postgres store: the thread's advisory lock (the compare-and-swap's), then the checkpoints, their
 * writes, and the channel blobs no remaining checkpoint names (prune-writers.ts).
 */
import { withConnection } from "./pg-connection.js";
import type { PrunePlan } from "./prune-plan.js";
import { onPhase, stillValid, type PruneOutcome } from "./prune-writers.js";
import { applyPostgresRecall, type PostgresPool } from "./recall-index/postgres-index.js";
import { quoteIdentifier } from "./sql.js";

export async function prunePostgres(
  pool: PostgresPool,
  schema: string,
  language: string,
  threadId: string,
  plan: PrunePlan,
): Promise<PruneOutcome> {
  const s = quoteIdentifier(schema);
  return withConnection(pool, async (client): Promise<PruneOutcome> => {
    await client.query("BEGIN");
    try {
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 7243))", [
        `langgraph-compaction:${threadId}`,
      ]);
      const head = await client.query(
        `SELECT checkpoint_id FROM ${s}.checkpoints WHERE thread_id = $1 AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1`,
        [threadId],
      );
      const current = (head.rows[0]?.checkpoint_id as string | undefined) ?? null;
      const planned = await client.query(
        `SELECT 1 FROM ${s}.checkpoints WHERE thread_id = $1 AND checkpoint_ns = '' AND checkpoint_id = $2`,
        [threadId, plan.headCheckpointId],
      );
      const children = plan.leavesOnly
        ? await client.query(
            `SELECT 1 FROM ${s}.checkpoints WHERE thread_id = $1 AND checkpoint_ns = '' AND parent_checkpoint_id = ANY($2::text[]) LIMIT 1`,
            [threadId, plan.remove],
          )
        : { rows: [] };
      if (!stillValid(plan, current ?? undefined, planned.rows.length > 0) || children.rows.length > 0) {
        await client.query("ROLLBACK");
        return { status: "conflict", headCheckpointId: current };
      }
      onPhase?.("prune:in-transaction");
      await applyPostgresRecall(client, schema, language, { threadId, add: plan.backfill });
      onPhase?.("prune:backfilled");
      await client.query(
        `DELETE FROM ${s}.checkpoint_writes WHERE thread_id = $1 AND checkpoint_ns = '' AND checkpoint_id = ANY($2::text[])`,
        [threadId, plan.remove],
      );
      await client.query(
        `DELETE FROM ${s}.checkpoints WHERE thread_id = $1 AND checkpoint_ns = '' AND checkpoint_id = ANY($2::text[])`,
        [threadId, plan.remove],
      );
      if (plan.namespacesBefore) {
        const kept = plan.keepNamespaces ?? [];
        await client.query(
          `DELETE FROM ${s}.checkpoint_writes WHERE thread_id = $1 AND NOT (checkpoint_ns = ANY($3::text[])) AND checkpoint_ns IN (
             SELECT checkpoint_ns FROM ${s}.checkpoints WHERE thread_id = $1 AND checkpoint_ns <> '' GROUP BY checkpoint_ns HAVING max(checkpoint_id) < $2)`,
          [threadId, plan.namespacesBefore, kept],
        );
        await client.query(
          `DELETE FROM ${s}.checkpoints WHERE thread_id = $1 AND NOT (checkpoint_ns = ANY($3::text[])) AND checkpoint_ns IN (
             SELECT checkpoint_ns FROM ${s}.checkpoints WHERE thread_id = $1 AND checkpoint_ns <> '' GROUP BY checkpoint_ns HAVING max(checkpoint_id) < $2)`,
          [threadId, plan.namespacesBefore, kept],
        );
      }
      // The channel values no remaining checkpoint of the thread names (a namespace's checkpoints name its own).
      await client.query(
        `DELETE FROM ${s}.checkpoint_blobs b WHERE b.thread_id = $1 AND NOT EXISTS (
           SELECT 1 FROM ${s}.checkpoints c WHERE c.thread_id = b.thread_id AND c.checkpoint_ns = b.checkpoint_ns
             AND c.checkpoint -> 'channel_versions' ->> b.channel = b.version)`,
        [threadId],
      );
      onPhase?.("prune:deleted");
      await client.query("COMMIT");
      return { status: "pruned" };
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    }
  });
}
