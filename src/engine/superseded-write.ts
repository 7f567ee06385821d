/**
 * A write of this library that a run superseded: the run had read the thread just before the write and wrote its
 * next checkpoint just after it, from the write's parent (store/lineage.ts). Nothing is lost (the run's head holds what
 * the write replaced), but the write is not a compaction of the thread any more: it is reported as superseded, and
 * its checkpoint, a branch nothing descends from, is deleted.
 */
import { stillInLine } from "../store/lineage.js";
import type { ThreadStore } from "../store/thread-store.js";
import { planPrune } from "./prune-plan.js";

export type WriteFate = { fate: "in line" } | { fate: "superseded"; removed: boolean };

/**
 * Whether the head still descends from `writtenId` (or is it); if not, the write is deleted when the store can delete
 * and nothing has been written from it since (every message it holds is in its parent or the transcript first).
 */
export async function settleWrite(store: ThreadStore, threadId: string, writtenId: string): Promise<WriteFate> {
  if (await stillInLine(store.saver, threadId, writtenId)) return { fate: "in line" };
  const headId = await store.readHeadId(threadId);
  const plan =
    headId === undefined || !store.prunable
      ? undefined
      : await planPrune(store, threadId, { branch: writtenId, headId });
  if (!plan) return { fate: "superseded", removed: false };
  const outcome = await store.prune(threadId, plan);
  return { fate: "superseded", removed: outcome.status === "pruned" };
}
