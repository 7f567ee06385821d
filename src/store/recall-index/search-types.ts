/** What a search of the transcript asks of the index that holds it (recall/search.ts, search-of.ts). */
import type { RecallFilter } from "./filter.js";
import type { RecallHit, RecallMessage } from "./types.js";
import type { RecallVectors } from "./vectors.js";

export interface RecallSearch {
  /** The best `limit` messages holding any of `terms`; with `filter`, of those it passes (filter.ts). */
  search(threadId: string, terms: readonly string[], limit: number, filter?: RecallFilter): Promise<RecallHit[]>;
  neighbours(
    threadId: string,
    at: { checkpointId: string; ordinal: number },
    count: number,
  ): Promise<{ before: RecallMessage[]; after: RecallMessage[] }>;
  /** The vectors of the thread's messages per embedding model, for the optional semantic ranking (a cache). */
  readonly vectors: RecallVectors;
}
