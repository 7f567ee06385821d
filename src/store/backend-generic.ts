/**
 * The backend of any other saver: its own methods only (a best-effort compare-and-swap, listings by `list`), the
 * in-process recall index; prunes a MemorySaver.
 */
import type { BaseCheckpointSaver, CheckpointTuple } from "@langchain/langgraph-checkpoint";
import { supersededWrites } from "./lineage.js";
import type { Backend, ThreadRow } from "./backend.js";
import { isMemorySaver, pruneMemory } from "./prune-memory.js";
import { unsupportedPrune } from "./prune-writers.js";
import { memoryRecallFor } from "./recall-index/memory-index.js";
import { GenericWriter } from "./swap-generic.js";

export function genericBackend(saver: BaseCheckpointSaver): Backend {
  const listThreads = async (): Promise<ThreadRow[]> => {
    // Best effort: a saver that lists every thread when no thread is named (MemorySaver does).
    const threads = new Map<string, ThreadRow>();
    for await (const tuple of saver.list({ configurable: {} })) {
      const threadId = tuple.config.configurable?.thread_id;
      if (tuple.config.configurable?.checkpoint_ns || threadId === undefined) continue;
      const row = threads.get(String(threadId));
      if (!row)
        threads.set(String(threadId), {
          threadId: String(threadId),
          checkpoints: 1,
          headCheckpointId: tuple.checkpoint.id,
        });
      else {
        row.checkpoints++;
        if (tuple.checkpoint.id > row.headCheckpointId) row.headCheckpointId = tuple.checkpoint.id;
      }
    }
    return [...threads.values()].sort((a, b) => (a.threadId < b.threadId ? -1 : a.threadId > b.threadId ? 1 : 0));
  };
  return {
    name: "generic",
    writer: new GenericWriter(saver),
    // No index here: every head is listed, and those above the cursor kept.
    changedSince: async (cursor) =>
      (await listThreads())
        .filter((row) => row.headCheckpointId > cursor)
        .map(({ threadId, headCheckpointId }) => ({ threadId, headCheckpointId })),
    strandedWrites: async (cursor) => {
      const byThread = new Map<string, CheckpointTuple[]>();
      for await (const tuple of saver.list({ configurable: {} })) {
        const threadId = tuple.config.configurable?.thread_id;
        if (tuple.config.configurable?.checkpoint_ns || threadId === undefined) continue;
        byThread.set(String(threadId), [...(byThread.get(String(threadId)) ?? []), tuple]);
      }
      return [...byThread].flatMap(([threadId, tuples]) => {
        const parents = new Set(tuples.map((tuple) => tuple.parentConfig?.configurable?.checkpoint_id));
        const head = tuples.reduce((a, b) => (b.checkpoint.id > a ? b.checkpoint.id : a), "");
        return [...supersededWrites(tuples)]
          .filter((id) => id > cursor && id < head && !parents.has(id))
          .map((id) => ({ threadId, headCheckpointId: id }));
      });
    },
    listThreads,
    recall: memoryRecallFor(saver),
    headId: async (threadId) =>
      (await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } }))?.checkpoint.id,
    storage: async () => undefined,
    prunable: isMemorySaver(saver),
    namespacesBefore: async (threadId, before) => {
      if (!isMemorySaver(saver)) return [];
      return Object.entries(saver.storage[threadId] ?? {})
        .filter(
          ([namespace, checkpoints]) =>
            namespace !== "" &&
            Object.keys(checkpoints).length > 0 &&
            Object.keys(checkpoints).every((id) => id < before),
        )
        .map(([namespace]) => namespace);
    },
    prune: async (threadId, plan) => {
      if (isMemorySaver(saver)) return pruneMemory(saver, memoryRecallFor(saver), threadId, plan);
      throw unsupportedPrune(saver);
    },
  };
}
