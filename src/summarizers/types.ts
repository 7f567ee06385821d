import type { BaseMessage } from "@langchain/core/messages";

export interface SummarizeInput {
  /** The text of the summary being replaced (a running summary folds it in), if any. */
  previousSummary?: string;
  /** How many messages the previous summary stands for (its provenance's `coveredMessages`), when known. */
  previousCoveredMessages?: number;
  /**
   * Set (possibly empty) when the summary is a log (`summaryLog: "append"`): the earlier segments' text, read-only.
   * The new segment is written for `messages` alone and adds to them. LlmSummarizer sends them before the messages;
   * the extractive summarizer selects from the messages alone.
   */
  earlierSegments?: string;
  /** The messages to summarize, oldest first. */
  messages: readonly BaseMessage[];
  /** Target size of the summary, in tokens. */
  tokenBudget: number;
  /** Aborted when the compaction's timeout expires. */
  signal?: AbortSignal;
  /**
   * Told the tokens of each model call the summary makes, as its provider reports them (a failed attempt's too: it
   * was billed). LlmSummarizer calls it; a summarizer without a model never does. The compaction's report sums them
   * (`summarizerTokens`).
   */
  onUsage?: (usage: SummarizerUsage) => void;
  /**
   * The prompt the agent's model read last, when the runtime has it (the middleware, at the call that crossed the
   * limit): `messages` holds them. A summarizer may send it as its request's start, so that the provider's prompt
   * cache serves it (LlmSummarizer does for a segment of the summary log).
   */
  prompt?: LivePrompt;
}

/** A model call's prompt as the model read it: the system message, the messages and the tools bound to the call. */
export interface LivePrompt {
  /** The system message sent before the messages (createAgent's `systemPrompt`), if any. */
  system?: BaseMessage;
  /** The messages, oldest first. */
  messages: readonly BaseMessage[];
  /** The tools bound to the call, as the agent gave them to `bindTools`. */
  tools?: readonly unknown[];
}

/** The tokens one model call of a summary read and wrote, as its provider reported them. */
export interface SummarizerUsage {
  inputTokens: number;
  outputTokens: number;
  /** Of `inputTokens`, those read from the provider's prompt cache, when it says. */
  cachedInputTokens?: number;
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
  /**
   * The longest summary it can write, in tokens (a model's output limit). Default budgets never ask for more; a
   * summarizer that does not say is assumed to stop at DEFAULT_SUMMARIZER_MAX_TOKENS.
   */
  readonly maxTokens?: number;
  /** A summary slower than this is abandoned and nothing is written. @default 120000 */
  readonly timeoutMs?: number;
  summarize(input: SummarizeInput): Promise<string>;
}

/** What a summarizer that states no `maxTokens` is assumed to write at most (older models stop at 4,096 tokens). */
export const DEFAULT_SUMMARIZER_MAX_TOKENS = 4_000;
