/** What `compactThread` did, or why it did nothing. */
export interface CompactionReport {
  threadId: string;
  /**
   * - `compacted`: a replacement checkpoint was written;
   * - `skipped`: nothing written: the thread is busy or interrupted, or there is nothing to summarize;
   * - `conflict`: nothing written: the summarized prefix changed under the summary (another compaction, a restore,
   *   an edit), or the head kept moving during every attempt.
   */
  status: "compacted" | "skipped" | "conflict";
  /** One sentence: what was done, or why nothing was. */
  reason: string;
  /** The head that was read (and, when compacted, replaced: fork from it to see every original message). */
  previousCheckpointId: string | null;
  newCheckpointId?: string;
  messagesBefore?: number;
  messagesAfter?: number;
  tokensBefore?: number;
  tokensAfter?: number;
  summarizedMessages?: number;
  keptMessages?: number;
  summaryId?: string;
  /** The summarizer used (when compacted: the one that wrote the summary, maybe the fallback). */
  summarizer: string;
  /** Why the configured summarizer was passed over for `fallbackSummarizer`, when it was. */
  fallbackReason?: string;
  summarizerMs?: number;
  writeMs?: number;
  attempts: number;
  /**
   * Set when the summary was computed on an earlier head and carried over to the current one (a rebase): the
   * thread grew while the summary was being written, its summarized prefix unchanged.
   */
  rebased?: {
    /** The head the summary was computed from. */
    snapshotCheckpointId: string;
    /** Messages appended between that head and the one replaced, kept verbatim. */
    appendedMessages: number;
  };
}
