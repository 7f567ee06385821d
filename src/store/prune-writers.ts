/**
 * Deleting what a prune plan removes, per backend, in one transaction with the transcript entries it must write
 * first, and only while the head is still the one the plan was made from (a turn that landed meanwhile: "conflict",
 * nothing deleted). SQLite: BEGIN IMMEDIATE on the saver's connection. Postgres: the thread's advisory lock (the
 * compare-and-swap's), then the checkpoints, their writes, and the channel blobs no remaining checkpoint names.
 * MemorySaver: its maps, in this process.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { CompactionError } from "../errors.js";
import { withConnection } from "./pg-connection.js";
import type { PrunePlan } from "./prune-plan.js";
import { applyPostgresRecall, type PostgresPool } from "./recall-index/postgres-index.js";
import { applySqliteRecall, ensureSqliteRecall } from "./recall-index/sqlite-index.js";
import type { MemoryRecall } from "./recall-index/memory-index.js";
import { quoteIdentifier } from "./sql.js";
import type { SqliteDatabase as Database } from "./sqlite-database.js";

/** The error of a prune on a saver this library cannot delete from. */
export function unsupportedPrune(saver: BaseCheckpointSaver): CompactionError {
  const name = saver.constructor?.name;
  return new CompactionError({
    code: "UNSUPPORTED",
    value: name,
    message: `pruning needs a SqliteSaver, a PostgresSaver or a MemorySaver; ${name ?? "this saver"} has no way to delete checkpoints that this library knows. Nothing was deleted.`,
  });
}

export type PruneOutcome = { status: "pruned" } | { status: "conflict"; headCheckpointId: string | null };

/** The step a crash test stops a prune at (SIGKILL from inside, at a named phase). */
export type PrunePhase = "prune:in-transaction" | "prune:backfilled" | "prune:deleted";
let onPhase: ((phase: PrunePhase) => void) | undefined;
/** Tests: called at each phase of a prune's transaction. */
export function onPrunePhase(hook: ((phase: PrunePhase) => void) | undefined): void {
  onPhase = hook;
}

/**
 * Whether the plan still holds: the head it was made from is still stored and is the head, or turns have only been
 * added after it since (checkpoint ids sort in time), so everything it deletes is older than what any turn started
 * from. A head replaced by an older-sorting id, or the planned head gone, is a conflict: plan again.
 */
function stillValid(plan: PrunePlan, current: string | undefined, plannedExists: boolean): boolean {
  return plannedExists && current !== undefined && current >= plan.headCheckpointId;
}

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

interface MemorySaverLike extends BaseCheckpointSaver {
  storage: Record<string, Record<string, Record<string, unknown>>>;
  writes: Record<string, unknown>;
}

export function isMemorySaver(saver: BaseCheckpointSaver): saver is MemorySaverLike {
  const candidate = saver as Partial<MemorySaverLike>;
  return (
    typeof candidate.storage === "object" &&
    candidate.storage !== null &&
    typeof candidate.writes === "object" &&
    candidate.writes !== null
  );
}

/** The writes key MemorySaver uses (its `_generateKey`). */
const writesKey = (threadId: string, namespace: string, checkpointId: string) =>
  JSON.stringify([threadId, namespace, checkpointId]);

export function pruneMemory(
  saver: MemorySaverLike,
  recall: MemoryRecall,
  threadId: string,
  plan: PrunePlan,
): PruneOutcome {
  const namespaces = saver.storage[threadId] ?? {};
  const root = namespaces[""] ?? {};
  const head = Object.keys(root).sort().at(-1) ?? null;
  const removed = new Set(plan.remove);
  const parentOfRemoved =
    plan.leavesOnly && Object.values(root).some((entry) => removed.has((entry as unknown[])[2] as string));
  if (!stillValid(plan, head ?? undefined, plan.headCheckpointId in root) || parentOfRemoved)
    return { status: "conflict", headCheckpointId: head };
  recall.apply({ threadId, add: plan.backfill });
  for (const id of plan.remove) {
    delete root[id];
    delete saver.writes[writesKey(threadId, "", id)];
  }
  if (plan.namespacesBefore) {
    for (const [namespace, checkpoints] of Object.entries(namespaces)) {
      if (namespace === "") continue;
      const ids = Object.keys(checkpoints);
      if (
        ids.length > 0 &&
        ids.every((id) => id < plan.namespacesBefore!) &&
        !(plan.keepNamespaces ?? []).includes(namespace)
      ) {
        for (const id of ids) delete saver.writes[writesKey(threadId, namespace, id)];
        delete namespaces[namespace];
      }
    }
  }
  return { status: "pruned" };
}
