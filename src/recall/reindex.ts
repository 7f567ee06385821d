/**
 * Rebuilding a thread's recall index from its checkpoint history: for threads compacted before the index existed,
 * for an in-process index after a restart, or after a change of the Postgres language. Idempotent, and equal to
 * live indexing: a message out of the head is indexed from the newest checkpoint that holds it (the head it left),
 * an edited message's original from the newest checkpoint that holds the original.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { requireThreadId, storeErrors, threadNotFound } from "../errors.js";
import { getSummaryProvenance } from "../messages/summary-message.js";
import { DEFAULT_POSTGRES_LANGUAGE, validateLanguage } from "../store/recall-index/postgres-index.js";
import { threadStoreFor } from "../store/thread-store.js";
import { editOf } from "../messages/markers.js";
import { recallEntry, recallText } from "../store/recall-index/entries.js";
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
export async function reindexThread(checkpointer: BaseCheckpointSaver, config: unknown, options: RecallBackendOptions = {}): Promise<ReindexReport> {
  const threadId = requireThreadId(config, "reindexThread");
  return storeErrors(threadId, reindex(checkpointer, threadId, options));
}

async function reindex(checkpointer: BaseCheckpointSaver, threadId: string, options: RecallBackendOptions): Promise<ReindexReport> {
  const store = threadStoreFor(checkpointer, { recallLanguage: validateLanguage(options.language ?? DEFAULT_POSTGRES_LANGUAGE) });
  const head = await store.readHead(threadId);
  if (!head) throw threadNotFound(threadId);
  const inHead = new Map<string, BaseMessage>();
  for (const message of head.messages) if (typeof message.id === "string") inHead.set(message.id, message);
  const done = new Set<string>();
  const entries: RecallEntry[] = [];
  const history = await store.listCheckpoints(threadId);
  // Newest first: the first checkpoint that holds a message (as it left the head) is the one live indexing names.
  for (const { tuple, messages } of history) {
    messages.forEach((message, ordinal) => {
      const id = message?.id;
      if (typeof id !== "string" || id === "" || done.has(id) || getSummaryProvenance(message)) return;
      const current = inHead.get(id);
      if (current && (recallText(current) === recallText(message) || editOf(message))) return;
      done.add(id);
      entries.push(recallEntry(message, tuple.checkpoint.id, ordinal, messages[ordinal - 1]));
    });
  }
  await store.recall.replaceThread(threadId, entries);
  return { threadId, indexed: entries.length, checkpoints: history.length };
}
