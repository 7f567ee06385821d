/**
 * The recall index for MemorySaver and any other saver: in this process, one per saver object, BM25 ranked (bm25.ts:
 * the name at half weight and the previous message at 0.3, as in the SQLite index).
 *
 * Why a small BM25 of our own rather than a search library (MiniSearch, FlexSearch, Lunr): it matches on exactly the
 * words the SQLite and Postgres indexes hold (store/recall-index/query.ts), scoping to a thread is a map lookup, removal is
 * exact, and the package gains no dependency. What it lacks: no stemming (SQLite stems English through FTS5's
 * porter tokenizer), and it lives as long as the process — like the MemorySaver it serves. For another saver that
 * persists, the index does not: `reindex` rebuilds it from the checkpoint history.
 */
import { wordsOf } from "../../messages/words.js";
import { CONTEXT_WEIGHT, idf as inverseFrequency, NAME_WEIGHT, termWeight } from "./bm25.js";
import { moved, recallLabel, recallMessage } from "./entries.js";
import { mergeEntries, versionForms } from "./versions.js";
import { MemoryVectors, type RecallVectors } from "./vectors.js";
import { passesFilter, type RecallFilter } from "./filter.js";
import type { RecallChanges, RecallEntry, RecallHit, RecallMessage } from "./types.js";

interface Document {
  entry: RecallEntry;
  terms: Map<string, number>;
  length: number;
  name: Set<string>;
  context: Set<string>;
}

function order(a: RecallEntry, b: RecallEntry): number {
  return a.checkpointId < b.checkpointId ? -1 : a.checkpointId > b.checkpointId ? 1 : a.ordinal - b.ordinal;
}

class ThreadIndex {
  readonly documents = new Map<string, Document>();
  private readonly frequency = new Map<string, number>();
  private totalLength = 0;

  add(entry: RecallEntry): void {
    this.remove(entry.messageId);
    const terms = new Map<string, number>();
    const words = wordsOf(entry.text);
    for (const word of words) terms.set(word, (terms.get(word) ?? 0) + 1);
    for (const word of terms.keys()) this.frequency.set(word, (this.frequency.get(word) ?? 0) + 1);
    this.totalLength += words.length;
    this.documents.set(entry.messageId, {
      entry,
      terms,
      length: words.length,
      name: new Set(wordsOf(recallLabel(entry))),
      context: new Set(wordsOf(entry.context ?? "")),
    });
  }

  remove(messageId: string): void {
    const document = this.documents.get(messageId);
    if (!document) return;
    for (const word of document.terms.keys()) {
      const left = this.frequency.get(word)! - 1;
      if (left === 0) this.frequency.delete(word);
      else this.frequency.set(word, left);
    }
    this.totalLength -= document.length;
    this.documents.delete(messageId);
  }

  search(terms: readonly string[], limit: number, filter?: RecallFilter): Array<{ entry: RecallEntry; score: number }> {
    const count = this.documents.size;
    if (count === 0) return [];
    const average = this.totalLength / count;
    const idf = (df: number) => inverseFrequency(df, count);
    const names = new Map<string, number>();
    const contexts = new Map<string, number>();
    for (const document of this.documents.values()) {
      for (const word of document.name) names.set(word, (names.get(word) ?? 0) + 1);
      for (const word of document.context) contexts.set(word, (contexts.get(word) ?? 0) + 1);
    }
    const scored: Array<{ entry: RecallEntry; score: number }> = [];
    for (const document of this.documents.values()) {
      if (!passesFilter(document.entry, filter)) continue;
      let score = 0;
      for (const term of terms) {
        const tf = document.terms.get(term);
        if (tf) score += idf(this.frequency.get(term)!) * termWeight(tf, document.length, average);
        if (document.name.has(term)) score += NAME_WEIGHT * idf(names.get(term)!);
        if (document.context.has(term)) score += CONTEXT_WEIGHT * idf(contexts.get(term)!);
      }
      if (score > 0) scored.push({ entry: document.entry, score });
    }
    return scored.sort((a, b) => b.score - a.score || order(a.entry, b.entry)).slice(0, limit);
  }

  sorted(): RecallEntry[] {
    return [...this.documents.values()].map((document) => document.entry).sort(order);
  }
}

export class MemoryRecall {
  private readonly threads = new Map<string, ThreadIndex>();
  readonly vectors: RecallVectors = new MemoryVectors();

  apply({ threadId, add, move = [] }: RecallChanges): void {
    if (add.length === 0 && move.length === 0) return;
    let thread = this.threads.get(threadId);
    if (!thread) this.threads.set(threadId, (thread = new ThreadIndex()));
    for (const place of move) {
      const document = thread.documents.get(place.messageId);
      if (document) thread.add(moved(document.entry, place));
    }
    const indexed = new Map(
      add.flatMap((entry) => {
        const known = thread.documents.get(entry.messageId)?.entry;
        return known ? [[entry.messageId, known] as const] : [];
      }),
    );
    for (const entry of mergeEntries(add, indexed)) thread.add(entry);
  }

  async search(threadId: string, terms: readonly string[], limit: number, filter?: RecallFilter): Promise<RecallHit[]> {
    return (this.threads.get(threadId)?.search(terms, limit, filter) ?? []).map(({ entry, score }) => ({
      ...recallMessage(entry),
      ...(entry.versions ? { versions: entry.versions } : {}),
      ordinal: entry.ordinal,
      score,
    }));
  }

  async neighbours(
    threadId: string,
    at: { checkpointId: string; ordinal: number },
    count: number,
  ): Promise<{ before: RecallMessage[]; after: RecallMessage[] }> {
    const entries = this.threads.get(threadId)?.sorted() ?? [];
    const index = entries.findIndex((entry) => entry.checkpointId === at.checkpointId && entry.ordinal === at.ordinal);
    if (index < 0 || count === 0) return { before: [], after: [] };
    return {
      before: entries.slice(Math.max(0, index - count), index).map(recallMessage),
      after: entries.slice(index + 1, index + 1 + count).map(recallMessage),
    };
  }

  async entries(threadId: string): Promise<RecallEntry[]> {
    return this.threads.get(threadId)?.sorted() ?? [];
  }

  async recorded(threadId: string, messageIds: readonly string[]): Promise<Map<string, Set<string>>> {
    const documents = this.threads.get(threadId)?.documents;
    const recorded = new Map<string, Set<string>>();
    for (const id of messageIds) {
      const entry = documents?.get(id)?.entry;
      if (entry?.message !== undefined) recorded.set(id, new Set(versionForms(entry)));
    }
    return recorded;
  }

  async record(changes: RecallChanges): Promise<void> {
    this.apply(changes);
  }

  async replaceThread(threadId: string, entries: readonly RecallEntry[]): Promise<void> {
    this.threads.delete(threadId);
    this.apply({ threadId, add: [...entries] });
  }
}

const indexes = new WeakMap<object, MemoryRecall>();

/** The in-process index of `saver` (created on first use). */
export function memoryRecallFor(saver: object): MemoryRecall {
  let index = indexes.get(saver);
  if (!index) indexes.set(saver, (index = new MemoryRecall()));
  return index;
}
