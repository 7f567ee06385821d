/**
 * Where a thread's transcript lives — one rule for every reader and writer that may see a graph's BaseStore (the
 * in-graph runtime, the `search_history` tool, `searchHistory`, `readTranscript`):
 * 1. in the checkpointer's database when it is SQLite or Postgres (its recall index, written with the head);
 * 2. otherwise in the graph's `BaseStore` when there is one (the Agent Server always gives one), under
 *    `["langgraph-compaction", "transcript", <thread>]`;
 * 3. otherwise in this process, beside the checkpointer (MemorySaver and other savers: lost with the process).
 * Without a checkpointer and without a store there is none: compaction then keeps only the graph's state.
 */
import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph-checkpoint";
import { baseStoreRecallFor } from "./recall-index/base-store-index.js";
import { DEFAULT_RECALL_LANGUAGE } from "./recall-index/types.js";
import { threadStoreFor, type RecallBackend } from "./thread-store.js";

export interface TranscriptPlaces {
  checkpointer?: BaseCheckpointSaver | undefined;
  store?: BaseStore | undefined;
  /** Postgres text search configuration of the checkpointer's index. @default "simple" */
  language?: string;
}

/** The transcript of the graph whose checkpointer and store are given, or undefined when it has neither. */
export function transcriptHome({
  checkpointer,
  store,
  language = DEFAULT_RECALL_LANGUAGE,
}: TranscriptPlaces): RecallBackend | undefined {
  if (checkpointer) {
    const threads = threadStoreFor(checkpointer, { recallLanguage: language });
    if (threads.backend !== "generic" || !store) return threads.recall;
  }
  return store ? baseStoreRecallFor(store) : undefined;
}

/** LangGraph's config key for the running graph's checkpointer (its constants.js), set in every task's config. */
const CONFIG_KEY_CHECKPOINTER = "__pregel_checkpointer";

/** The checkpointer and store of the graph a node, middleware or tool runs in, from its config (or runtime). */
export function graphPlaces(config: unknown): { checkpointer?: BaseCheckpointSaver; store?: BaseStore } {
  const { configurable, store } = (config ?? {}) as { configurable?: Record<string, unknown>; store?: BaseStore };
  const checkpointer = configurable?.[CONFIG_KEY_CHECKPOINTER] as BaseCheckpointSaver | undefined;
  return { ...(typeof checkpointer?.getTuple === "function" ? { checkpointer } : {}), ...(store ? { store } : {}) };
}
