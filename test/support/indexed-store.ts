/**
 * A store whose recall index already holds some entries, for the search suites: a checkpointer of each kind
 * (savers.ts), or a graph's BaseStore with no checkpointer.
 */
import { InMemoryStore } from "@langchain/langgraph-checkpoint";
import { threadStoreFor } from "../../src/store/thread-store.js";
import { baseStoreRecallFor } from "../../src/store/recall-index/base-store-index.js";
import type { RecallEntry } from "../../src/store/recall-index/types.js";
import { createStore, type SaverKind, type TestStore } from "./savers.js";

/** A store of `kind` whose index holds `entries` for `threadId`. */
export async function createIndexedStore(
  kind: SaverKind,
  threadId: string,
  entries: RecallEntry[],
): Promise<TestStore> {
  const store = await createStore(kind);
  await threadStoreFor(store.saver).recall.record({ threadId, add: entries });
  return store;
}

/** A graph's BaseStore whose transcript holds `entries` for `threadId`. */
export async function createIndexedBaseStore(threadId: string, entries: RecallEntry[]): Promise<InMemoryStore> {
  const store = new InMemoryStore();
  await baseStoreRecallFor(store).record({ threadId, add: entries });
  return store;
}
