/**
 * A write of this library that a run superseded: the run had read the thread just before the write and wrote its
 * next checkpoint just after it, from the write's parent (store/lineage.ts). Nothing is lost (the run's head holds what
 * the write replaced), but the write is not a compaction of the thread any more: it is reported as superseded, and
 * its checkpoint, a branch nothing descends from, is deleted.
 */
import { stillInLine } from "../store/lineage.js";
import { messageIdsOf, planBranchRemoval } from "../store/prune-plan.js";
import type { ThreadStore } from "../store/thread-store.js";

export type WriteFate = { fate: "in line" } | { fate: "superseded"; removed: boolean };

/**
 * Whether the head still descends from `writtenId` (or is it); if not, the write is deleted when the store can delete
 * and nothing has been written from it since (every message it holds is in its parent or the transcript first).
 */
export async function settleWrite(store: ThreadStore, threadId: string, writtenId: string): Promise<WriteFate> {
  if (await stillInLine(store.saver, threadId, writtenId)) return { fate: "in line" };
  const written = await store.readCheckpoint(threadId, writtenId);
  const parentId = written?.tuple.parentConfig?.configurable?.checkpoint_id as string | undefined;
  const parent = parentId === undefined ? undefined : await store.readCheckpoint(threadId, parentId);
  const headId = await store.readHeadId(threadId);
  if (!written || !parent || headId === undefined || !store.prunable) return { fate: "superseded", removed: false };
  const recorded = await store.recall.recorded(threadId, messageIdsOf([written]));
  const outcome = await store.prune(threadId, planBranchRemoval(parent, written, headId, recorded));
  return { fate: "superseded", removed: outcome.status === "pruned" };
}
