import type { BaseMessage } from "@langchain/core/messages";

export interface SummarizeInput {
  /** The text of the summary being replaced (a running summary folds it in), if any. */
  previousSummary?: string;
  /** How many messages the previous summary stands for (its provenance's `coveredMessages`), when known. */
  previousCoveredMessages?: number;
  /** The messages to summarize, oldest first. */
  messages: readonly BaseMessage[];
  /** Target size of the summary, in tokens. */
  tokenBudget: number;
  /** Aborted when the compaction's timeout expires. */
  signal?: AbortSignal;
}

/**
 * Turns a segment of conversation (plus the previous summary) into summary text. Implementations must not write
 * anything anywhere; a failure is an exception, never an error text returned as a summary.
 */
export interface Summarizer {
  /** Short name recorded in the summary's provenance ("extractive", "llm"). */
  readonly name: string;
  /** The model behind it, if any, recorded in the provenance. */
  readonly model?: string;
  summarize(input: SummarizeInput): Promise<string>;
}
