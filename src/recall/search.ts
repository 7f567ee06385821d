/**
 * `searchHistory`: search the messages that compaction took out of a thread's head, scoped to that thread.
 */
import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph-checkpoint";
import { asStoreError, CompactionError, requireThreadId } from "../errors.js";
import { argument } from "../options/check.js";
import { language as LANGUAGE } from "../options/rules.js";
import { integer } from "../options/rules.js";
import { DEFAULT_RECALL_LANGUAGE } from "../store/recall-index/types.js";
import { searchLimit, searchTerms } from "../store/recall-index/query.js";
import { recallMessage } from "../store/recall-index/entries.js";
import type { RecallHit, RecallMessage, SearchHit } from "../store/recall-index/types.js";
import { threadStoreFor } from "../store/thread-store.js";
import { transcriptHome } from "../store/transcript-home.js";
import { searchOf } from "../store/recall-index/search-of.js";
import { HeadView, headViewOf } from "./out-of-head.js";
import { passesFilter, resolveRecallFilter, type RecallFilterOptions } from "../store/recall-index/filter.js";
import {
  FUSED_CANDIDATES,
  reciprocalRankFusion,
  semanticRank,
  validateSemantic,
  type SemanticRanking,
} from "./semantic.js";

export const DEFAULT_NEIGHBOURS = 2;
export const MAX_NEIGHBOURS = 5;
const NEIGHBOURS = integer(0, { max: MAX_NEIGHBOURS });

export interface RecallBackendOptions {
  /** Postgres text search configuration used when a thread's rows do not name theirs. @default "simple" */
  language?: string;
}

export interface TranscriptStoreOption {
  /**
   * The graph's `BaseStore`: where the in-graph runtime keeps the transcript when the checkpointer is neither SQLite
   * nor Postgres (store/transcript-home.ts). Give the store the graph was compiled with (or the Agent Server's).
   */
  store?: BaseStore;
}

export interface SearchHistoryOptions extends RecallBackendOptions, TranscriptStoreOption, RecallFilterOptions {
  /** Hits returned, best first, 1 to 100. @default 5 */
  limit?: number;
  /**
   * How many indexed messages before and after each hit it carries (`before`, `after`), 0 to 5. A hit is rarely the
   * whole story: the question it answers, the reply it got. On the real conversations of the retention benchmark
   * one search found the evidence of 61% of the compacted questions as a hit, 74% with one neighbour each side, and
   * with two the context or one search held every evidence turn for 82% of the questions (79% with one).
   * @default 2
   */
  neighbours?: number;
  /**
   * Rank with an embedding model too (recall/semantic.ts): the full-text ranking and the vectors' fused by
   * reciprocal rank fusion, so a message that says the query's meaning in other words is found. Each message is
   * embedded once per model, on the first search that needs it, and its vector kept beside the index. Off by default.
   */
  semantic?: SemanticRanking;
}

function storeError(error: unknown, threadId: string): unknown {
  const typed = asStoreError(error, threadId);
  if (CompactionError.isInstance(typed) && typed.code !== "STORE_ERROR") return typed;
  return new CompactionError({
    code: "STORE_UNAVAILABLE",
    value: threadId,
    message: `thread ${JSON.stringify(threadId)}: the recall index could not be read: ${error instanceof Error ? error.message : String(error)}`,
    cause: error,
  });
}

/**
 * Search the messages compaction took out of the head of the thread of `config`, best first. `query` is words,
 * never query syntax (store/recall-index/query.ts). Only messages of that thread are ever returned. Reads only
 * (with `semantic`, it also keeps the vectors it had to make).
 * `checkpointer` may be undefined for a graph compiled without one when `options.store` holds its transcript.
 * `speaker`, `from` and `to` narrow the search to what one speaker said within a date range (the messages around a
 * hit are shown whoever said them).
 * @throws CompactionError MISSING_THREAD_ID; MISSING_CHECKPOINTER with neither a checkpointer nor a store;
 *   INVALID_ARGUMENT for a query with no word, a bad limit, an empty speaker, an unreadable date or a range that
 *   ends before it starts; STORE_UNAVAILABLE when the index cannot be read;
 *   EMBEDDINGS_FAILED when the `semantic` model fails.
 */
export async function searchHistory(
  checkpointer: BaseCheckpointSaver | undefined,
  config: unknown,
  query: string,
  options: SearchHistoryOptions = {},
): Promise<SearchHit[]> {
  const threadId = requireThreadId(config, "searchHistory");
  const terms = searchTerms(query);
  const limit = searchLimit(options.limit);
  const neighbours = argument("neighbours", options.neighbours ?? DEFAULT_NEIGHBOURS, NEIGHBOURS);
  const language = argument("recall.language", options.language ?? DEFAULT_RECALL_LANGUAGE, LANGUAGE);
  validateSemantic(options.semantic);
  const filter = resolveRecallFilter(options);
  const home = transcriptHome({ checkpointer, store: options.store, language });
  if (!home) {
    throw new CompactionError({
      code: "MISSING_CHECKPOINTER",
      parameter: "checkpointer",
      value: checkpointer,
      message: "searchHistory needs the graph's checkpointer or, for a graph without one, its store (options.store)",
    });
  }
  const backend = searchOf(home);
  try {
    // Without a checkpointer there is no head to read: the state holds what the transcript does not.
    const head = checkpointer
      ? await headViewOf(threadStoreFor(checkpointer, { recallLanguage: language }), threadId)
      : new HeadView([]);
    // One rule for every entry, whatever wrote it (a compaction, a prune's backfill, a reindex): a message is found by
    // the words of its newest version, and only while the head does not hold it. Older versions (an edit under the
    // message's id, maybe a redaction) are kept in the transcript, never searched. Hits the head holds are left out;
    // at most `head.size` of them, so a second, wider read fills the page when the first one lost some.
    const out = (entry: { messageId: string }) => !head.holds(entry.messageId);
    let found: RecallHit[];
    if (options.semantic) {
      // Both rankings over the messages out of the head, fused (recall/semantic.ts).
      const fullText = (
        await backend.search(threadId, terms, Math.max(FUSED_CANDIDATES, limit) + head.size, filter)
      ).filter(out);
      const entries = (await home.entries(threadId)).filter((entry) => out(entry) && passesFilter(entry, filter));
      const similar = await semanticRank(
        backend.vectors,
        threadId,
        entries,
        query,
        options.semantic,
        Math.max(FUSED_CANDIDATES, limit),
      );
      const byId = new Map<string, RecallMessage & { ordinal: number }>([
        ...similar.map((entry) => [entry.messageId, { ...recallMessage(entry), ordinal: entry.ordinal }] as const),
        ...fullText.map((hit) => [hit.messageId, hit] as const),
      ]);
      found = reciprocalRankFusion([fullText.map((hit) => hit.messageId), similar.map((entry) => entry.messageId)]).map(
        ({ id, score }) => ({ ...byId.get(id)!, score }),
      );
    } else {
      let hits = await backend.search(threadId, terms, limit, filter);
      found = hits.filter(out);
      if (found.length < limit && hits.length === limit && head.size > 0) {
        hits = await backend.search(threadId, terms, limit + head.size, filter);
        found = hits.filter(out);
      }
    }
    return await Promise.all(
      found.slice(0, limit).map(async ({ ordinal, versions: _versions, ...hit }) => {
        const around = await backend.neighbours(
          threadId,
          { checkpointId: hit.checkpointId, ordinal },
          neighbours + NEIGHBOUR_SLACK,
        );
        const before = neighbours === 0 ? [] : around.before.filter(out).slice(-neighbours);
        return { ...hit, before, after: around.after.filter(out).slice(0, neighbours) };
      }),
    );
  } catch (error) {
    throw storeError(error, threadId);
  }
}

/** Neighbours read beyond those asked for, in case some are back in the head. */
const NEIGHBOUR_SLACK = 4;
