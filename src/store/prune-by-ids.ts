/**
 * A prune planned from the store's own tables, reviving no message (SQLite). Between two prunes a thread's turns
 * only append to its messages, and the store can show it: each checkpoint from the oldest that goes to the oldest
 * kept is a graph step (`source` "input" or "loop") made from the one before it (its parent), and its list is
 * exactly as much longer as the messages its step wrote (the `writes` rows of the `messages` channel under the
 * parent). A message written over another (the same id), removed, or any other rewrite makes the list grow by less
 * than what was written. So every list that goes is the start of the oldest kept one, message for message: nothing it
 * holds can be lost, and nothing needs to be backfilled.
 *
 * What it reads: the lengths of the lists (SQLite's JSON in C, one checkpoint per stretch of the event loop), the
 * checkpoints' metadata, and the step writes (small: what each step added). Whatever it cannot tell — a rewrite, a
 * write by `updateState` or a compaction ("update"), a fork, a delta channel, a serializer other than JSON, an
 * interrupt waiting, a sub-agent's namespace that would go — answers undefined, and the prune reads the checkpoints
 * (prune-plan.ts, the plan of record).
 */
import { INTERRUPT } from "@langchain/langgraph-checkpoint";
import { turnOver } from "../slices.js";
import type { PrunePlan } from "./prune-plan.js";
import type { SqliteDatabase as Database } from "./sqlite-database.js";

interface Row {
  id: string;
  parent: string | null;
  type: string | null;
  source: unknown;
}

const STEP_SOURCES = new Set(["input", "loop"]);

/** The plan of a prune keeping the newest `keep` root checkpoints, or undefined where the checkpoints must be read. */
export async function planSqlitePruneByIds(db: Database, threadId: string, keep: number): Promise<PrunePlan | undefined> {
  // A saver that never wrote has no tables yet: the prune of record says the thread is not found.
  if (!db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'writes'`).get()) return undefined;
  const rows = db
    .prepare(
      `SELECT checkpoint_id AS id, parent_checkpoint_id AS parent, type, json_extract(CAST(metadata AS TEXT), '$.source') AS source
       FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id`,
    )
    .all(threadId) as Row[];
  if (rows.length === 0) return undefined;
  // Nothing to delete: said without reading a checkpoint.
  if (rows.length <= keep) return { headCheckpointId: rows.at(-1)!.id, kept: rows.map((row) => row.id), remove: [], backfill: [] };
  if (rows.some((row) => row.type !== "json")) return undefined;
  const remove = rows.slice(0, -keep).map((row) => row.id);
  const kept = rows.slice(-keep).map((row) => row.id);
  const waiting = db.prepare(`SELECT 1 FROM writes WHERE thread_id = ? AND checkpoint_ns = '' AND channel = ? AND checkpoint_id IN (SELECT value FROM json_each(?)) LIMIT 1`).get(threadId, INTERRUPT, JSON.stringify(remove));
  if (waiting) return undefined;
  const subgraphs = db.prepare(`SELECT 1 FROM checkpoints WHERE thread_id = ? AND checkpoint_ns <> '' GROUP BY checkpoint_ns HAVING max(checkpoint_id) < ? LIMIT 1`).get(threadId, remove.at(-1)!);
  if (subgraphs) return undefined;
  // From the oldest that goes to the oldest kept: one chain of graph steps.
  const chain = rows.slice(0, remove.length + 1);
  for (let index = 1; index < chain.length; index++) {
    if (chain[index]!.parent !== chain[index - 1]!.id || !STEP_SOURCES.has(String(chain[index]!.source))) return undefined;
  }
  const lengthOf = db.prepare(`SELECT json_array_length(CAST(checkpoint AS TEXT), '$.channel_values.messages') AS n FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?`);
  const writesOf = db.prepare(`SELECT type, CAST(value AS TEXT) AS value FROM writes WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ? AND channel = 'messages'`);
  let previous: number | undefined;
  for (const [index, { id }] of chain.entries()) {
    // One checkpoint per stretch: SQLite's work holds the event loop, a whole turn of it between two (slices.ts).
    await turnOver();
    const length = (lengthOf.get(threadId, id) as { n: number | null } | undefined)?.n;
    if (typeof length !== "number") return undefined;
    if (previous !== undefined && length - previous !== writtenCount(writesOf.all(threadId, chain[index - 1]!.id) as Array<{ type: string | null; value: string | null }>)) return undefined;
    previous = length;
  }
  return { headCheckpointId: kept.at(-1)!, kept, remove, namespacesBefore: remove.at(-1)!, backfill: [] };
}

/** Messages a step's writes hand the reducer (a list, or one message), or NaN where that cannot be told. */
function writtenCount(writes: ReadonlyArray<{ type: string | null; value: string | null }>): number {
  let count = 0;
  for (const { type, value } of writes) {
    if (type !== "json" || value === null) return Number.NaN;
    const parsed: unknown = JSON.parse(value);
    count += Array.isArray(parsed) ? parsed.length : 1;
  }
  return count;
}
