/**
 * The one BM25 of the indexes that rank in this package (in-process, Postgres): k1 = 1.2, b = 0.75, a word in the
 * message's name at half weight and in the previous message (its context) at 0.3, as the SQLite index weighs its
 * columns. SQLite's FTS5 ranks with its own `bm25()`, with the same column weights.
 */
export const K1 = 1.2;
export const B = 0.75;
export const NAME_WEIGHT = 0.5;
export const CONTEXT_WEIGHT = 0.3;

/** The inverse document frequency of a word `documentFrequency` of `documents` messages hold (never negative). */
export function idf(documentFrequency: number, documents: number): number {
  return Math.log(1 + (documents - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

/** BM25's weight of a word said `tf` times in a message of `length` words, where messages average `average`. */
export function termWeight(tf: number, length: number, average: number): number {
  return (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / Math.max(1, average)));
}
