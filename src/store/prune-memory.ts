/** A prune of a MemorySaver: its maps, in this process (prune-writers.ts). */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import type { PrunePlan } from "./prune-plan.js";
import { stillValid, type PruneOutcome } from "./prune-writers.js";
import type { MemoryRecall } from "./recall-index/memory-index.js";

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
