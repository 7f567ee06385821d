/**
 * Rebuilding a thread's recall index from its checkpoint history: for threads compacted before the index existed,
 * for an in-process index after a restart, or after a change of the Postgres language. Idempotent, and equal to
 * live indexing: it replays, oldest first, the index changes of every write this library made (the checkpoint it
 * replaced against the one it wrote: store/recall-index/entries.ts), and nothing else. The application's own edits and
 * removals (`updateState`, `RemoveMessage`) are never indexed, live or rebuilt: a redacted original stays out.
 * Checkpoints written before the library marked its writes count as its own when they are a compaction, a recovery
 * or a restore, or when they put one of its edit markers (cleared, clipped, archived) on a message. An entry the
 * replay does not produce is kept as it is: after a prune it is the transcript's only copy of its message.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { requireThreadId, storeErrors, threadNotFound } from "../errors.js";
import { validateLanguage } from "../store/recall-index/postgres-index.js";
import { DEFAULT_RECALL_LANGUAGE } from "../store/recall-index/types.js";
import { threadStoreFor, type StoredCheckpoint } from "../store/thread-store.js";
import { editOf } from "../messages/markers.js";
import { moved, recallChanges } from "../store/recall-index/entries.js";
import { mergeEntries } from "../store/recall-index/versions.js";
import { writtenByLibrary } from "../store/replacement-checkpoint.js";
import type { RecallBackendOptions } from "./search.js";
import type { RecallEntry } from "../store/recall-index/types.js";

export interface ReindexReport {
  threadId: string;
  /** Messages in the index after the rebuild. */
  indexed: number;
  /** Checkpoints read. */
  checkpoints: number;
}

/**
 * Rebuild the recall index of the thread of `config` from its history (root namespace).
 * @throws CompactionError MISSING_THREAD_ID, THREAD_NOT_FOUND, STORE_CORRUPT; STORE_LOCKED, STORE_UNAVAILABLE or
 *   STORE_ERROR when the store cannot be written (nothing written).
 */
export async function reindexThread(
  checkpointer: BaseCheckpointSaver,
  config: unknown,
  options: RecallBackendOptions = {},
): Promise<ReindexReport> {
  const threadId = requireThreadId(config, "reindexThread");
  return storeErrors(threadId, reindex(checkpointer, threadId, options));
}

async function reindex(
  checkpointer: BaseCheckpointSaver,
  threadId: string,
  options: RecallBackendOptions,
): Promise<ReindexReport> {
  const store = threadStoreFor(checkpointer, {
    recallLanguage: validateLanguage(options.language ?? DEFAULT_RECALL_LANGUAGE),
  });
  const history = await store.listCheckpoints(threadId);
  if (history.length === 0) throw threadNotFound(threadId);
  const indexed = await store.recall.entries(threadId);
  // A message whose first leaving the history no longer holds (pruned) keeps the place the index gave it then, and
  // every version the index holds.
  const rebuilt = mergeEntries(
    replayedEntries(threadId, history),
    new Map(indexed.map((entry) => [entry.messageId, entry])),
  );
  // Entries the history can no longer produce — the write that made them, or the checkpoint before it, was pruned;
  // or a prune wrote them — are the only copy of their message: they stay as they are.
  const produced = new Set(rebuilt.map((entry) => entry.messageId));
  const pruned = indexed.filter((entry) => !produced.has(entry.messageId));
  const entries = [...pruned, ...rebuilt].sort((a, b) =>
    a.checkpointId < b.checkpointId ? -1 : a.checkpointId > b.checkpointId ? 1 : a.ordinal - b.ordinal,
  );
  await store.recall.replaceThread(threadId, entries);
  return { threadId, indexed: entries.length, checkpoints: history.length };
}

/** The index live writes leave: each library write's changes, applied oldest first. `history`: newest first. */
export function replayedEntries(threadId: string, history: readonly StoredCheckpoint[]): RecallEntry[] {
  const byId = new Map(history.map((stored) => [stored.tuple.checkpoint.id, stored]));
  const entries = new Map<string, RecallEntry>();
  for (const stored of [...history].reverse()) {
    const metadata = stored.tuple.metadata as Record<string, unknown> | undefined;
    // What the write replaced: its parent (the head it swapped), or for a recovery the checkpoint it started from.
    const recoveredFrom = (metadata?.compaction as { recoveredFrom?: unknown } | undefined)?.recoveredFrom;
    const beforeId =
      typeof recoveredFrom === "string" ? recoveredFrom : stored.tuple.parentConfig?.configurable?.checkpoint_id;
    const before = typeof beforeId === "string" ? byId.get(beforeId) : undefined;
    if (!before || !(writtenByLibrary(metadata) || marksEdits(before.messages, stored.messages))) continue;
    const changes = recallChanges(threadId, before.tuple.checkpoint.id, before.messages, stored.messages);
    for (const entry of mergeEntries(changes.add, entries)) entries.set(entry.messageId, entry);
    for (const place of changes.move ?? []) {
      const entry = entries.get(place.messageId);
      if (entry) entries.set(place.messageId, moved(entry, place));
    }
  }
  return [...entries.values()].sort((a, b) =>
    a.checkpointId < b.checkpointId ? -1 : a.checkpointId > b.checkpointId ? 1 : a.ordinal - b.ordinal,
  );
}

/** Whether `after` puts one of this library's edit markers on a message `before` held unmarked (a legacy strategy write). */
function marksEdits(before: readonly BaseMessage[], after: readonly BaseMessage[]): boolean {
  const unmarked = new Set(
    before.filter((message) => typeof message.id === "string" && !editOf(message)).map((message) => message.id),
  );
  return after.some((message) => editOf(message) !== undefined && unmarked.has(message.id));
}
