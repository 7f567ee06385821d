import { TokenCounter } from "../tokens/token-counter.js";
import { ExtractiveSummarizer } from "./extractive.js";
import { DEFAULT_SUMMARY_MODEL } from "./llm.js";
import { createOpenAISummarizer } from "./openai.js";
import type { Summarizer } from "./types.js";

/**
 * The summarizer used when none is given: an `LlmSummarizer` over `ChatOpenAI` when `OPENAI_API_KEY` is set
 * (model `SUMMARY_MODEL`, default gpt-4o-mini; `OPENAI_BASE_URL` for any compatible server), otherwise the offline
 * `ExtractiveSummarizer`.
 */
export function createDefaultSummarizer(
  { env = process.env, counter }: { env?: Record<string, string | undefined>; counter?: TokenCounter } = {},
): Summarizer {
  const apiKey = env.OPENAI_API_KEY;
  if (!apiKey) return new ExtractiveSummarizer({ counter });
  return createOpenAISummarizer({
    apiKey,
    model: env.SUMMARY_MODEL || env.OPENAI_MODEL || DEFAULT_SUMMARY_MODEL,
    baseURL: env.OPENAI_BASE_URL || undefined,
  });
}
