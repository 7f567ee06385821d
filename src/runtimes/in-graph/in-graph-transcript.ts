/**
 * Where the in-graph runtime writes what an update takes out of the state: the thread's transcript, in the
 * checkpointer's index when SQLite or Postgres, else the graph's BaseStore, else the in-process index
 * (store/transcript-home.ts), idempotently by message id, before the update is returned.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { recallChanges } from "../../store/recall-index/entries.js";
import { threadStoreFor } from "../../store/thread-store.js";
import { graphPlaces, transcriptHome } from "../../store/transcript-home.js";
import type { InGraphOptions } from "./in-graph-options.js";

/** The stored forms the thread's transcript holds of each of `ids` (none without a thread or a transcript). */
export async function recordedForms(
  options: Pick<InGraphOptions, "checkpointer" | "store">,
  language: string,
  threadId: string | undefined,
  ids: readonly string[],
  config: unknown,
): Promise<ReadonlyMap<string, ReadonlySet<string>>> {
  if (threadId === undefined) return new Map();
  const graph = graphPlaces(config);
  const transcript = transcriptHome({
    checkpointer: options.checkpointer ?? graph.checkpointer,
    store: options.store ?? graph.store,
    language,
  });
  return transcript ? await transcript.recorded(threadId, ids) : new Map();
}

/** The messages `after` takes out of `before`, written to the thread's transcript (nowhere without a thread). */
export async function recordRemoved(
  options: Pick<InGraphOptions, "checkpointer" | "store">,
  language: string,
  threadId: string | undefined,
  before: readonly BaseMessage[],
  after: readonly BaseMessage[],
  config: unknown,
): Promise<void> {
  if (threadId === undefined) return;
  const graph = graphPlaces(config);
  const checkpointer = options.checkpointer ?? graph.checkpointer;
  const transcript = transcriptHome({ checkpointer, store: options.store ?? graph.store, language });
  if (!transcript) return;
  const headId = checkpointer ? await threadStoreFor(checkpointer).readHeadId(threadId) : undefined;
  await transcript.record(recallChanges(threadId, headId ?? "in-graph", before, after));
}
