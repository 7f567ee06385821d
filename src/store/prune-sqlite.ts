/** A prune of a SQLite store: BEGIN IMMEDIATE on the saver's connection (prune-writers.ts). */
import type { PrunePlan } from "./prune-plan.js";
import { onPhase, stillValid, type PruneOutcome } from "./prune-writers.js";
import { applySqliteRecall, ensureSqliteRecall } from "./recall-index/sqlite-index.js";
import type { SqliteDatabase as Database } from "../sqlite-database.js";

export function pruneSqlite(db: Database, threadId: string, plan: PrunePlan): PruneOutcome {
  if (plan.backfill.length > 0) ensureSqliteRecall(db);
  const run = db.transaction((): PruneOutcome => {
    const head = db
      .prepare(
        `SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1`,
      )
      .get(threadId) as { checkpoint_id: string } | undefined;
    const planned = db
      .prepare(`SELECT 1 FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?`)
      .get(threadId, plan.headCheckpointId);
    const parentOfRemoved = () =>
      db
        .prepare(
          `SELECT 1 FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND parent_checkpoint_id IN (SELECT value FROM json_each(?)) LIMIT 1`,
        )
        .get(threadId, JSON.stringify(plan.remove));
    if (!stillValid(plan, head?.checkpoint_id, planned !== undefined) || (plan.leavesOnly && parentOfRemoved()))
      return { status: "conflict", headCheckpointId: head?.checkpoint_id ?? null };
    onPhase?.("prune:in-transaction");
    applySqliteRecall(db, { threadId, add: plan.backfill });
    onPhase?.("prune:backfilled");
    const ids = JSON.stringify(plan.remove);
    db.prepare(
      `DELETE FROM writes WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id IN (SELECT value FROM json_each(?))`,
    ).run(threadId, ids);
    db.prepare(
      `DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id IN (SELECT value FROM json_each(?))`,
    ).run(threadId, ids);
    if (plan.namespacesBefore) {
      // Whole subgraph namespaces whose newest checkpoint is older than the newest deleted root checkpoint, but those
      // holding a message no kept checkpoint or transcript holds.
      const kept = JSON.stringify(plan.keepNamespaces ?? []);
      db.prepare(
        `DELETE FROM writes WHERE thread_id = ? AND checkpoint_ns NOT IN (SELECT value FROM json_each(?)) AND checkpoint_ns IN (
           SELECT checkpoint_ns FROM checkpoints WHERE thread_id = ? AND checkpoint_ns <> '' GROUP BY checkpoint_ns HAVING max(checkpoint_id) < ?)`,
      ).run(threadId, kept, threadId, plan.namespacesBefore);
      db.prepare(
        `DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_ns NOT IN (SELECT value FROM json_each(?)) AND checkpoint_ns IN (
           SELECT checkpoint_ns FROM checkpoints WHERE thread_id = ? AND checkpoint_ns <> '' GROUP BY checkpoint_ns HAVING max(checkpoint_id) < ?)`,
      ).run(threadId, kept, threadId, plan.namespacesBefore);
    }
    onPhase?.("prune:deleted");
    return { status: "pruned" };
  });
  return run.immediate();
}
