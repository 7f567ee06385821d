/** ExtractiveSummarizer's options (summarizers/extractive.ts), as given and as its algorithm reads them. */
import type { TokenCounter } from "../../tokens/token-counter.js";

export interface ExtractiveSummarizerOptions {
  /** Counter for the budget. @default a TokenCounter for "gpt-4o" */
  counter?: TokenCounter;
  /** Longest sentence kept, in characters; longer ones are clipped at a word. @default 240 */
  maxLineLength?: number;
  /**
   * How many times a message of the newest segment counts against a message the previous summary covers, when the
   * budget is split between them. 1 (the default): every covered message has the same claim, which keeps the most
   * of a conversation overall; 2 keeps more of the latest messages at the cost of older ones (docs/benchmarks.md
   * gives both, measured). @default 1
   */
  recencyWeight?: number;
  /**
   * Keep what a person or an agent said without the thread's grammar words — the words in a tenth or more of its
   * messages ("the", "a", "I", "was") — names, numbers and negations always kept (extractive/compact.ts): the same
   * budget then holds more of a conversation, in note style (docs/benchmarks.md measures both). Tool results and
   * multi-line messages are kept as written either way. `false`: every sentence as written. @default true
   */
  compactSentences?: boolean;
}

/** ExtractiveSummarizer's options, resolved: what its algorithm (extractive/summarize.ts) reads. */
export interface ExtractiveSettings {
  counter: TokenCounter;
  maxLineLength: number;
  recencyWeight: number;
  compactSentences: boolean;
}
