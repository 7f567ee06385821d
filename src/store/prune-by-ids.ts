/**
 * A prune planned from the store's own tables, reading no checkpoint into the process (SQLite and Postgres alike;
 * the tables are read by prune-tables.ts). The proof is about what is stored, not about how it got there: every
 * checkpoint that goes holds a messages list that is, byte for byte, the start of the list of the oldest checkpoint
 * kept. Then nothing it holds can be lost and nothing needs to be backfilled — whatever the steps between wrote
 * (an append, an `Overwrite`, a `RemoveMessage`, `REMOVE_ALL_MESSAGES`, an edit under the same id, a `Command`
 * update, a compaction): any of those that changed an earlier message breaks the prefix, and the prune reads the
 * checkpoints instead (prune-plan.ts, the plan of record).
 *
 * Whatever the tables cannot tell — a serializer other than JSON, a delta channel, an interrupt waiting, a
 * sub-agent's namespace that would go — answers undefined, and the plan of record decides.
 */
import { turnOver } from "../slices.js";
import type { PrunePlan } from "./prune-plan.js";

/** What a backend reads of its tables for the plan (prune-tables.ts). */
export interface PruneTables {
  /** The ids of the thread's root checkpoints, oldest first; undefined when the tables do not exist yet. */
  rootCheckpoints(threadId: string): Promise<string[] | undefined>;
  /** Whether any of `ids` has an interrupt waiting (its checkpoint must stay). */
  interruptWaiting(threadId: string, ids: readonly string[]): Promise<boolean>;
  /** The thread's subgraph namespaces whose newest checkpoint is older than `before` (a prune deletes them whole). */
  namespacesBefore(threadId: string, before: string): Promise<string[]>;
  /**
   * Whether the messages `checkpointId` holds are the start of those `keptId` holds, as stored (the same bytes):
   * true, false, or undefined where the store cannot tell (not a JSON list: another serializer, a delta channel).
   */
  isPrefixOf(threadId: string, checkpointId: string, keptId: string): Promise<boolean | undefined>;
}

/** The plan of a prune keeping the newest `keep` root checkpoints, or undefined where the checkpoints must be read. */
export async function planPruneByIds(
  tables: PruneTables,
  threadId: string,
  keep: number,
): Promise<PrunePlan | undefined> {
  const ids = await tables.rootCheckpoints(threadId);
  if (!ids || ids.length === 0) return undefined;
  // Nothing to delete: said without reading a checkpoint.
  if (ids.length <= keep) return { headCheckpointId: ids.at(-1)!, kept: ids, remove: [], backfill: [] };
  const remove = ids.slice(0, -keep);
  const kept = ids.slice(-keep);
  if (await tables.interruptWaiting(threadId, remove)) return undefined;
  if ((await tables.namespacesBefore(threadId, remove.at(-1)!)).length > 0) return undefined;
  for (const id of remove) {
    // One checkpoint per stretch: the store's work holds the event loop, a whole turn of it between two (slices.ts).
    await turnOver();
    if ((await tables.isPrefixOf(threadId, id, kept[0]!)) !== true) return undefined;
  }
  return { headCheckpointId: kept.at(-1)!, kept, remove, namespacesBefore: remove.at(-1)!, backfill: [] };
}
