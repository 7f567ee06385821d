/**
 * The OpenAI summarizer: an LlmSummarizer over `ChatOpenAI`, whose package (`@langchain/openai`, an optional peer
 * dependency) is imported on the first summary, so an application on another provider never installs it.
 */
import { importOptional } from "../optional-dependency.js";
import { DEFAULT_SUMMARY_MODEL, LlmSummarizer, type LlmSummarizerOptions } from "./llm.js";

export interface OpenAISummarizerOptions {
  /** @default the OpenAI client's own: OPENAI_API_KEY in the process's environment */
  apiKey?: string;
  /** @default "gpt-4o-mini" */
  model?: string;
  /** Any OpenAI-compatible server. @default the OpenAI client's own: OPENAI_BASE_URL, else OpenAI */
  baseURL?: string;
}

/** `shape`: the summary's wording (summaryPrompt, trimTokensToSummarize) and the counter trimming counts with. */
export function createOpenAISummarizer(
  { apiKey, model = DEFAULT_SUMMARY_MODEL, baseURL }: OpenAISummarizerOptions = {},
  shape: Pick<LlmSummarizerOptions, "summaryPrompt" | "trimTokensToSummarize" | "counter"> = {},
): LlmSummarizer {
  return new LlmSummarizer({
    ...shape,
    modelName: model,
    loadModel: async () => {
      const { ChatOpenAI } = await importOptional(
        "@langchain/openai",
        "the OpenAI summarizer",
        () => import("@langchain/openai"),
      );
      return new ChatOpenAI({
        ...(apiKey === undefined ? {} : { apiKey }),
        model,
        temperature: 0,
        // The client's own retries, with its backoff, are the only ones (LlmSummarizer makes one call per summary).
        maxRetries: 2,
        configuration: baseURL ? { baseURL } : undefined,
      });
    },
  });
}
