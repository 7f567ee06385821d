/**
 * What an in-graph compaction tells: `onCompaction`'s event, and the same on the graph's "custom" stream for a UI
 * (types only, shared with the browser entry, src/client.ts).
 */
import type { SummarizerTokens } from "../../engine/summarizer-tokens.js";

export interface InGraphCompactionEvent {
  threadId: string | undefined;
  messagesBefore: number;
  messagesAfter: number;
  tokensBefore: number;
  tokensAfter: number;
  /** Computed off the model call (applied at a later one), or on its path. */
  background: boolean;
  /** Messages appended after the snapshot the summary was computed on, kept verbatim. */
  appended: number;
  /** The id of the summary that now opens the head. */
  summaryId: string;
  /** Messages this compaction took out of the head (in the transcript, `readTranscript` or the client's reader). */
  removed: number;
  /**
   * The provider's prompt cache this compaction broke: the tokens of the new context from its first message that
   * differs on (the next model call writes them again, or pays them in full).
   */
  rewrittenTokens: number;
  /** The summarizer's own tokens for this summary, when it reported them (LlmSummarizer). */
  summarizerTokens?: SummarizerTokens;
  /** Set when the compaction kept less than `keep` asked for (that would not have ended under the ceiling): what was asked. */
  keptLess?: string;
  /** Set when the summary log's reflection failed, the new segment written all the same: what failed. */
  reflectionFailed?: string;
}

/**
 * What the graph's `"custom"` stream carries at each compaction (besides `onCompaction`), for a UI to mark where the
 * conversation was summarized: `{ type: "compaction", ...InGraphCompactionEvent }`.
 */
export interface CompactionStreamEvent extends InGraphCompactionEvent {
  type: "compaction";
}
