/**
 * What is distinctive *in this thread*: document frequencies over the thread's own documents (each message of the
 * segment, each line carried from the previous summary), with no outside word list, so it works the same in any
 * language and for any domain.
 *
 * - A word found in at least COMMON_SHARE of the documents (and in at least MIN_COMMON_DOCUMENTS of them) is common:
 *   function words, greetings, thanks, the speakers' names and the thread's small talk all land here, because they
 *   recur everywhere. A common word carries no weight.
 * - Any other word weighs its inverse document frequency, ln(N / df): a word said once outweighs one said five
 *   times. Numbers and identifiers are never common (a figure that recurs is still a figure).
 * - The participants' names (the `name` of the messages) are never content: "Thanks, Caroline!" says nothing new.
 */
import { isFigure } from "../../messages/words.js";

/** A word in this share of the documents or more is common. */
export const COMMON_SHARE = 0.05;
/** ...but only once it is in at least this many documents (small segments have few documents). */
export const MIN_COMMON_DOCUMENTS = 3;

/** How many documents of `documents` a word must be in to be in `share` of them: at least MIN_COMMON_DOCUMENTS. */
export function documentThreshold(documents: number, share: number): number {
  return Math.max(MIN_COMMON_DOCUMENTS, Math.ceil(documents * share));
}

export class Vocabulary {
  readonly documents: number;
  private readonly frequency = new Map<string, number>();
  private readonly commonAt: number;
  private readonly names: Set<string>;

  /** `documents`: the words of each document; `names`: the participants' names, lower-cased words. */
  constructor(documents: ReadonlyArray<Iterable<string>>, names: Iterable<string> = []) {
    this.documents = Math.max(1, documents.length);
    for (const words of documents) {
      for (const word of new Set(words)) this.frequency.set(word, (this.frequency.get(word) ?? 0) + 1);
    }
    this.commonAt = documentThreshold(this.documents, COMMON_SHARE);
    this.names = new Set(names);
  }

  /** Documents containing `word` (at least 1: a word being scored exists somewhere). */
  documentFrequency(word: string): number {
    return Math.max(1, this.frequency.get(word) ?? 0);
  }

  isName(word: string): boolean {
    return this.names.has(word);
  }

  /** True when `word` says something in this thread: not common, not a participant's name, not a lone letter. */
  isContent(word: string): boolean {
    if (this.names.has(word)) return false;
    if (isFigure(word)) return true;
    if ([...word].length < 2) return false;
    return this.documentFrequency(word) < this.commonAt;
  }

  /** Weight of a word: its inverse document frequency when it is content, 0 otherwise. */
  weight(word: string): number {
    if (!this.isContent(word)) return 0;
    return Math.log((this.documents + 1) / this.documentFrequency(word));
  }
}
