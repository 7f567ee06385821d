/**
 * The provenance a summary message carries in `additional_kwargs.compaction`, read from any message-shaped value: a
 * LangChain message, or the plain JSON of one (the Agent Server's state, read through the SDK in a browser). Plain
 * data: no Node built-ins, nothing of LangChain at run time.
 */

export const PROVENANCE_KEY = "compaction";
export const SUMMARY_MARKER = "langgraph-compaction/summary";

export interface SummaryProvenance {
  marker: typeof SUMMARY_MARKER;
  /** The checkpoint whose history this summary replaced; fork from it to see every covered message. */
  replacedCheckpointId: string | null;
  /** Messages covered, including those covered by a previous summary folded into this one. */
  coveredMessages: number;
  /** Tokens of the covered messages (as counted when they were summarized). */
  coveredTokens: number;
  firstCoveredId: string | null;
  lastCoveredId: string | null;
  /** Ids of the messages summarized directly by this summary (not those of a folded previous summary). */
  coveredIds: string[];
  /** The previous summary folded into this one, if any. */
  previousSummaryId: string | null;
  summarizer: string;
  model: string | null;
  /** Set when the configured summarizer failed and the fallback wrote this summary. */
  fallbackReason?: string;
  /**
   * Set when pinned messages from before the cut follow this summary in the head: their ids, the first message kept
   * after them, and the message that one followed in the conversation, the last before the cut (the transcript's
   * order: in the head, it follows a pin).
   */
  pins?: { ids: string[]; keptId: string; followedId: string };
  /** The summary message's first line(s), when the application chose them (`summaryPrefix`). */
  prefix?: string;
  /**
   * Set when the summary is a log of segments (`summaryLog: "append"`): each segment's span, oldest first. The text
   * holds the catalog line (when segments retired), then each segment, separated by a blank line.
   */
  segments?: SummarySegment[];
  /** Messages of the segments that retired from the log (their messages are in the transcript). */
  retiredMessages?: number;
  /** How many times a reflection condensed the log's older segments into one (each rewrote the log). */
  condensations?: number;
  /**
   * The token limit (the trigger, resolved) the compaction that wrote this summary ran under: what the script uses
   * for the thread when it is given none.
   */
  limit?: number;
  createdAt: string;
}

/** One segment of a summary log: the messages one compaction summarized, written once and never rewritten. */
export interface SummarySegment {
  /** The segment's length in characters. */
  chars: number;
  /** Messages the segment covers. */
  messages: number;
  firstCoveredId: string | null;
  lastCoveredId: string | null;
}

/** The provenance of a summary, read from a message-shaped value's `additional_kwargs`; undefined for any other. */
export function provenanceOf(
  message: { additional_kwargs?: unknown } | null | undefined,
): SummaryProvenance | undefined {
  const provenance = (message?.additional_kwargs as Record<string, unknown> | undefined)?.[PROVENANCE_KEY];
  if (typeof provenance !== "object" || provenance === null) return undefined;
  return (provenance as SummaryProvenance).marker === SUMMARY_MARKER ? (provenance as SummaryProvenance) : undefined;
}
