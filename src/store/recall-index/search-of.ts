/**
 * The search of a transcript's home: SQLite's is a class of its own over the same file (store/recall-index/
 * sqlite-search.ts), so the wrapper, which writes the transcript and never searches it, loads none of it; the other
 * homes search themselves (Postgres, the in-process index, a graph's BaseStore).
 */
import type { RecallBackend } from "../backend.js";
import type { RecallSearch } from "./search-types.js";
import { SqliteRecall } from "./sqlite-index.js";
import { SqliteSearch } from "./sqlite-search.js";

const searches = new WeakMap<RecallBackend, RecallSearch>();

export function searchOf(home: RecallBackend): RecallSearch {
  if ("search" in home) return home as RecallBackend & RecallSearch;
  let search = searches.get(home);
  if (!search) {
    if (!(home instanceof SqliteRecall)) throw new TypeError("a transcript home with no search");
    searches.set(home, (search = new SqliteSearch(home.db)));
  }
  return search;
}
