/**
 * A search query is user text, never query syntax: it is cut into words (messages/words.ts, the same words the
 * index holds), and each word is searched as a word. Quotes, `NEAR(`, `*`, `:`, `-`, `OR` or SQL in a query are
 * words or nothing; they can neither raise an error in the engine nor widen the search beyond the thread.
 */
import { z } from "zod";
import { CompactionError } from "../../errors.js";
import { argument } from "../../options/check.js";
import { integer } from "../../options/rules.js";
import { wordsOf } from "../../messages/words.js";
import { withoutFunctionWords } from "./function-words.js";

/** Words of a query beyond this are ignored (a 100 KB query is answered from its first words). */
export const MAX_QUERY_TERMS = 32;
/** Characters of a query read at most. */
export const MAX_QUERY_CHARS = 10_000;
export const DEFAULT_SEARCH_LIMIT = 5;
export const MAX_SEARCH_LIMIT = 100;
/** A number of hits (`limit`, the script's `--hits`). */
export const SEARCH_LIMIT = integer(1, { max: MAX_SEARCH_LIMIT });

/**
 * The distinct words of `query`, in order, at most MAX_QUERY_TERMS.
 * @throws CompactionError INVALID_ARGUMENT when the query is not a string or holds no word.
 */
export function queryTerms(given: unknown): string[] {
  const query = argument("query", given, z.string({ error: "a string of words to search for" }));
  // A word with an apostrophe ("Caroline's", "don't") is its parts: kept whole, the engines would read it as a
  // phrase ("caroline s") that matches only the rare possessive, and rank by that.
  const words = wordsOf(query.slice(0, MAX_QUERY_CHARS)).flatMap((word) =>
    /['’]/.test(word) ? word.split(/['’]/).filter((part) => [...part].length >= 2) : [word],
  );
  const terms = [...new Set(words)].slice(0, MAX_QUERY_TERMS);
  if (terms.length === 0) {
    throw new CompactionError({
      code: "INVALID_ARGUMENT",
      parameter: "query",
      value: query.slice(0, 120),
      message: `query must hold at least one word (letters or digits); got ${JSON.stringify(query.slice(0, 60))}`,
    });
  }
  return terms;
}

/**
 * The words a search ranks by: the query's words (queryTerms) without its function words ("what", "did", "the"),
 * unless it holds nothing else (function-words.ts says why).
 * @throws CompactionError INVALID_ARGUMENT as queryTerms.
 */
export function searchTerms(query: unknown): string[] {
  return withoutFunctionWords(queryTerms(query));
}

export function searchLimit(limit: unknown): number {
  return argument("limit", limit ?? DEFAULT_SEARCH_LIMIT, SEARCH_LIMIT);
}

/** An FTS5 expression matching any of `terms`: each one a quoted string (so no operator can be spelled). */
export function fts5Expression(terms: readonly string[]): string {
  return terms.map((term) => `"${term.replace(/"/g, '""')}"`).join(" OR ");
}

/** A tsquery text matching any of `terms`: each one a quoted lexeme (so no operator can be spelled). */
export function tsqueryText(terms: readonly string[], weight?: "B" | "C" | "D"): string {
  return terms
    .map((term) => `'${term.replace(/\\/g, "\\\\").replace(/'/g, "''")}'${weight ? `:${weight}` : ""}`)
    .join(" | ");
}
