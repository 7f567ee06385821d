/**
 * Where the in-graph runtime writes what an update takes out of the state: the thread's transcript, in the graph's
 * checkpointer's index when SQLite or Postgres, else the graph's BaseStore, else the in-process index
 * (store/transcript-home.ts), idempotently by message id, before the update is returned.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { recallChanges } from "../../store/recall-index/entries.js";
import { threadStoreFor } from "../../store/thread-store.js";
import { graphPlaces, transcriptHome } from "../../store/transcript-home.js";

/** The transcript of the graph a step runs in (from its config), or undefined without a thread or a place for one. */
function transcriptOf(language: string, threadId: string | undefined, config: unknown) {
  if (threadId === undefined) return undefined;
  const places = graphPlaces(config);
  const transcript = transcriptHome({ ...places, language });
  return transcript ? { transcript, checkpointer: places.checkpointer } : undefined;
}

/** The stored forms the thread's transcript holds of each of `ids` (none without a thread or a transcript). */
export async function recordedForms(
  language: string,
  threadId: string | undefined,
  ids: readonly string[],
  config: unknown,
): Promise<ReadonlyMap<string, ReadonlySet<string>>> {
  const found = transcriptOf(language, threadId, config);
  return found ? await found.transcript.recorded(threadId!, ids) : new Map();
}

/** The messages `after` takes out of `before`, written to the thread's transcript (nowhere without a thread). */
export async function recordRemoved(
  language: string,
  threadId: string | undefined,
  before: readonly BaseMessage[],
  after: readonly BaseMessage[],
  config: unknown,
): Promise<void> {
  const found = transcriptOf(language, threadId, config);
  if (!found) return;
  const headId = found.checkpointer ? await threadStoreFor(found.checkpointer).readHeadId(threadId!) : undefined;
  await found.transcript.record(recallChanges(threadId!, headId ?? "in-graph", before, after));
}
