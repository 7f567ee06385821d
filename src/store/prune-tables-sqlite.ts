/** What a prune's plan reads of a SQLite file's tables (prune-tables.ts says how lists are compared). */
import { INTERRUPT } from "@langchain/langgraph-checkpoint";
import { turnOver } from "../slices.js";
import type { PruneTables } from "./prune-plan.js";
import { startsWith, withoutUndefinedFields } from "./prune-tables.js";
import type { SqliteDatabase as Database } from "../sqlite-database.js";

export function sqlitePruneTables(db: Database): Omit<PruneTables, "namespacesBefore"> {
  const listOf = `SELECT type, json_type(CAST(checkpoint AS TEXT), '$.channel_versions.messages') AS written,
      json_type(CAST(checkpoint AS TEXT), '$.channel_values.messages') AS kind,
      json_extract(CAST(checkpoint AS TEXT), '$.channel_values.messages') AS list
    FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?`;
  type List = { type: string | null; written: string | null; kind: string | null; list: string | null };
  /** The last kept checkpoint's list, as compared. */
  let kept: { key: string; list: string | undefined } | undefined;
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
      // Each read parses a checkpoint's JSON (about 40 ms at 10,000 messages): one per stretch of the event loop
      // (slices.ts), and the kept checkpoint's list read once for the plan's every checkpoint (an id's checkpoint
      // never changes).
      const statement = db.prepare(listOf);
      const start = statement.get(threadId, checkpointId) as List | undefined;
      if (start?.type !== "json") return undefined;
      if (start.written === null && start.kind === null) return true;
      if (start.kind !== "array") return undefined;
      const key = `${threadId}\u0000${keptId}`;
      if (kept?.key !== key) {
        await turnOver();
        const whole = statement.get(threadId, keptId) as List | undefined;
        kept = {
          key,
          list: whole?.type === "json" && whole.kind === "array" ? withoutUndefinedFields(whole.list!) : undefined,
        };
      }
      return kept.list === undefined ? undefined : startsWith(kept.list, withoutUndefinedFields(start.list!));
    },
  };
}
