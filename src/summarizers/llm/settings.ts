/** What an LlmSummarizer's summary (llm/summarize.ts) reads of its options (summarizers/llm.ts), resolved. */
import type { TokenCounter } from "../../tokens/token-counter.js";

export interface LlmSettings {
  summaryPrompt?: string;
  /** `trimTokensToSummarize`, with the counter that measures it. */
  trim?: { max: number; counter: TokenCounter };
}
