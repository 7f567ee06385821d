import type { BaseMessage } from "@langchain/core/messages";
import type { ProviderUsage } from "./calibration.js";
import type { SummarizerTokens } from "./summarizer-tokens.js";

/** What a compaction did, or why it did nothing: a union on `status`. */
interface ReportBase {
  threadId: string;
  /** One sentence: what was done, or why nothing was. */
  reason: string;
  /** The head that was read (and, when compacted, replaced: fork from it to see every original message). */
  previousCheckpointId: string | null;
  /** The summarizer (or strategy) used; when compacted, the one that wrote the summary, maybe the fallback. */
  summarizer: string;
  attempts: number;
  /** The head's size when it was read, when it was (tokens calibrated by the provider's figures where they exist). */
  messagesBefore?: number;
  tokensBefore?: number;
  /**
   * The provider's figures of the head's latest model call, when its reply carried them: input tokens, and of those
   * read from and written to the provider's prompt cache (docs/token-counting.md).
   */
  providerUsage?: ProviderUsage;
}

/** A replacement checkpoint was written. */
export interface CompactedReport extends ReportBase {
  status: "compacted";
  newCheckpointId: string;
  messagesBefore: number;
  messagesAfter: number;
  tokensBefore: number;
  tokensAfter: number;
  /**
   * The provider's prompt cache this compaction broke: the tokens of the new head from its first message that differs
   * from the replaced head's on (the summary, usually, and everything after it). The next call writes them to the
   * cache again, or pays them in full (engine/prompt-cache.ts).
   */
  rewrittenTokens: number;
  /** Set when a summary was written (not by a strategy that only clears or drops). */
  summarizedMessages?: number;
  keptMessages?: number;
  /** Set when the compaction kept less than `keep` asked for (that would not have ended under the ceiling): what was asked. */
  keptLess?: string;
  summaryId?: string;
  /** Why the configured summarizer was passed over for `fallbackSummarizer`, when it was. */
  fallbackReason?: string;
  /**
   * Set when the summary log's reflection failed (`summaryLog: "append"`): what failed. The new segment was written
   * all the same, the oldest segments retired to keep the log within its budget (their messages are in the transcript).
   */
  reflectionFailed?: string;
  summarizerMs: number;
  /** The summarizer's own tokens, when it reported them. */
  summarizerTokens?: SummarizerTokens;
  writeMs: number;
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
  /**
   * With `keepCheckpoints`: the prune that followed the compaction (`failed` with its reason when the store refused
   * it; the compaction stands either way).
   */
  pruned?: { status: string; removed: number; backfilled: number; reason?: string };
}

/**
 * Why a compaction wrote nothing, for code to act on (`reason` says it to a person; never parse it):
 * - `UNDER_LIMIT`: the thread is not over `tokenLimit` (and the compaction was not forced);
 * - `NOTHING_TO_SUMMARIZE`: no cut is possible (everything is pinned, the latest turn, or already a summary), or a
 *   strategy changed nothing;
 * - `WONT_FIT`: the compacted thread would not end under the ceiling (the latest turn and the summary alone are too
 *   large);
 * - `BUSY`: a run is in progress on the thread (pending writes or nodes); it clears by itself;
 * - `INTERRUPTED`: the thread is paused at an `interrupt()` until it is resumed.
 */
export type SkipCode = "UNDER_LIMIT" | "NOTHING_TO_SUMMARIZE" | "WONT_FIT" | "BUSY" | "INTERRUPTED";

/** The skip code of a head that is not idle. */
export function busyCode(head: { busyKind?: "run" | "interrupt" }): SkipCode {
  return head.busyKind === "interrupt" ? "INTERRUPTED" : "BUSY";
}

/** Nothing written: the thread is busy or interrupted, or there is nothing to summarize. */
export interface SkippedReport extends ReportBase {
  status: "skipped";
  /** Why, as a code (see SkipCode). */
  code: SkipCode;
  /** Set when a summary was written but not applied (it would not have ended under the ceiling). */
  summarizerMs?: number;
  /** That summary's tokens, when its summarizer reported them. */
  summarizerTokens?: SummarizerTokens;
}

/**
 * Nothing written: the summarized prefix changed under the summary (another compaction, a restore, an edit), or
 * the head kept moving during every attempt.
 */
export interface ConflictReport extends ReportBase {
  status: "conflict";
  summarizerMs?: number;
  fallbackReason?: string;
}

export type CompactionReport = CompactedReport | SkippedReport | ConflictReport;

/** The options of `pruneThread`. */
export interface PruneOptions {
  /** Newest checkpoints of the root namespace kept (the head among them). @default 3 */
  keep?: number;
  /** Plan only: what would be deleted and written, nothing changed. @default false */
  dryRun?: boolean;
}

/** What `pruneThread` did. */
export interface PruneReport {
  threadId: string;
  /** "pruned"; "dry-run"; "nothing" (nothing to delete); "conflict" (turns kept landing: nothing deleted). */
  status: "pruned" | "dry-run" | "nothing" | "conflict";
  headCheckpointId: string;
  /** Root-namespace checkpoints before, kept and deleted. */
  checkpointsBefore: number;
  kept: number;
  removed: number;
  /** Messages written to the transcript before the deletion (held only by deleted checkpoints). */
  backfilled: number;
  reason?: string;
}

/** What `HistoryManager.applyEdit` did with a strategy's history (apply-edit.ts). */
export type EditOutcome =
  | {
      status: "written";
      checkpointId: string;
      previousCheckpointId: string;
      messages: BaseMessage[];
      appended: number;
      attempts: number;
    }
  | { status: "skipped"; code: SkipCode; reason: string; attempts: number }
  | { status: "conflict"; reason: string; attempts: number };
