/**
 * The transcript in a LangGraph `BaseStore` (the graph's long-term store, which the Agent Server provides): for a
 * graph whose checkpointer keeps no index of its own (the server's, an in-memory saver, none), each message a
 * compaction takes out of the state is an item under the namespace `["langgraph-compaction", "transcript",
 * <thread>]` (TRANSCRIPT_NAMESPACE), keyed by its message id — so writing it again replaces it (idempotent) — with the
 * same fields as an entry of the SQLite and Postgres indexes (store/recall-index/types.ts). Items are written with
 * `index: false`: a store configured for semantic search does not embed them.
 *
 * Search reads the thread's items and ranks them in this process with the in-process index's BM25
 * (memory-index.ts): the store's own search is semantic or absent, never full-text. A search reads every item of the
 * thread, which is fine for a transcript of thousands of messages; a bigger one wants a SQLite or Postgres
 * checkpointer, whose index answers in the database.
 */
import type { RecallFilter } from "./filter.js";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import type { RecallBackend } from "../thread-store.js";
import { hasLeft, moved } from "./entries.js";
import { mergeEntries, versionForms } from "./versions.js";
import { MemoryRecall } from "./memory-index.js";
import type { RecallChanges, RecallEntry, RecallHit, RecallMessage } from "./types.js";
import { vectorBytes, vectorFromBytes, type RecallVectors, type StoredVector } from "./vectors.js";
import { entryOfItem as entryOf, storeLabel as threadLabel, transcriptNamespace } from "./transcript-items.js";

export { TRANSCRIPT_NAMESPACE, transcriptNamespace } from "./transcript-items.js";

/** Items read per page of a thread's transcript. */
const PAGE = 1_000;

export class BaseStoreRecall implements RecallBackend {
  readonly vectors: RecallVectors;

  constructor(readonly store: BaseStore) {
    this.vectors = new BaseStoreVectors(store);
  }

  async entries(threadId: string): Promise<RecallEntry[]> {
    return (await this.indexOf(threadId)).entries(threadId);
  }

  async search(threadId: string, terms: readonly string[], limit: number, filter?: RecallFilter): Promise<RecallHit[]> {
    return (await this.indexOf(threadId)).search(threadId, terms, limit, filter);
  }

  async neighbours(
    threadId: string,
    at: { checkpointId: string; ordinal: number },
    count: number,
  ): Promise<{ before: RecallMessage[]; after: RecallMessage[] }> {
    return (await this.indexOf(threadId)).neighbours(threadId, at, count);
  }

  async recorded(threadId: string, messageIds: readonly string[]): Promise<Map<string, Set<string>>> {
    const namespace = transcriptNamespace(threadId);
    const items = await Promise.all(messageIds.map((id) => this.store.get(namespace, id)));
    const recorded = new Map<string, Set<string>>();
    messageIds.forEach((id, index) => {
      const entry = items[index] ? entryOf(items[index]!.value) : undefined;
      if (entry?.message !== undefined) recorded.set(id, new Set(versionForms(entry)));
    });
    return recorded;
  }

  async record({ threadId, add, move = [] }: RecallChanges): Promise<void> {
    const namespace = transcriptNamespace(threadId);
    for (const place of move) {
      const stored = await this.store.get(namespace, place.messageId);
      const entry = stored ? entryOf(stored.value) : undefined;
      if (entry && !hasLeft(entry)) await this.store.put(namespace, place.messageId, { ...moved(entry, place) }, false);
    }
    // Entries indexed before keep their versions and first place (versions.ts).
    const known = await Promise.all(add.map((entry) => this.store.get(namespace, entry.messageId)));
    const indexed = new Map(
      add.flatMap((entry, index) => {
        const place = known[index] ? entryOf(known[index]!.value) : undefined;
        return place ? [[entry.messageId, place] as const] : [];
      }),
    );
    for (const entry of mergeEntries(add, indexed))
      await this.store.put(namespace, entry.messageId, { ...entry }, false);
  }

  async replaceThread(threadId: string, entries: readonly RecallEntry[]): Promise<void> {
    const namespace = transcriptNamespace(threadId);
    const keep = new Set(entries.map((entry) => entry.messageId));
    for (const item of await this.items(threadId))
      if (!keep.has(item.key)) await this.store.delete(namespace, item.key);
    await this.record({ threadId, add: [...entries] });
  }

  /** Every item of the thread's transcript, read page by page. */
  private async items(threadId: string): Promise<Array<{ key: string; value: Record<string, unknown> }>> {
    return itemsIn(this.store, transcriptNamespace(threadId));
  }

  /** The thread's entries in an in-process index, for one read. */
  private async indexOf(threadId: string): Promise<MemoryRecall> {
    const index = new MemoryRecall();
    const entries = (await this.items(threadId))
      .map((item) => entryOf(item.value))
      .filter((entry): entry is RecallEntry => entry !== undefined);
    index.apply({ threadId, add: entries });
    return index;
  }
}

/** Every item directly in `namespace` (not in a deeper one, which its prefix also matches), read page by page. */
async function itemsIn(
  store: BaseStore,
  namespace: string[],
): Promise<Array<{ key: string; value: Record<string, unknown> }>> {
  const items: Array<{ key: string; value: Record<string, unknown> }> = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await store.search(namespace, { limit: PAGE, offset });
    for (const item of page)
      if (item.namespace.length === namespace.length) items.push({ key: item.key, value: item.value });
    if (page.length < PAGE) return items;
  }
}

const vectorsNamespace = (threadId: string, model: string) => [
  "langgraph-compaction",
  "vectors",
  threadLabel(threadId),
  threadLabel(model),
];

/**
 * The semantic ranking's vectors (recall-index/vectors.ts): an item per message under `["langgraph-compaction",
 * "vectors", <thread>, <model>]`, its vector as base64 float32 bytes, written with `index: false`.
 */
class BaseStoreVectors implements RecallVectors {
  constructor(private readonly store: BaseStore) {}

  async read(threadId: string, model: string): Promise<StoredVector[]> {
    const vectors: StoredVector[] = [];
    for (const { key, value } of await itemsIn(this.store, vectorsNamespace(threadId, model))) {
      const { hash, vector } = value as { hash?: unknown; vector?: unknown };
      if (typeof hash === "string" && typeof vector === "string")
        vectors.push({ messageId: key, hash, vector: vectorFromBytes(Buffer.from(vector, "base64")) });
    }
    return vectors;
  }

  async write(threadId: string, model: string, vectors: readonly StoredVector[]): Promise<void> {
    const namespace = vectorsNamespace(threadId, model);
    for (const { messageId, hash, vector } of vectors)
      await this.store.put(namespace, messageId, { hash, vector: vectorBytes(vector).toString("base64") }, false);
  }
}

const backends = new WeakMap<BaseStore, BaseStoreRecall>();

/** The transcript kept in `store` (one backend per store object). */
export function baseStoreRecallFor(store: BaseStore): BaseStoreRecall {
  let backend = backends.get(store);
  if (!backend) backends.set(store, (backend = new BaseStoreRecall(store)));
  return backend;
}
