import { TokenCounter } from "../tokens/token-counter.js";
import { ExtractiveSummarizer } from "./extractive.js";
import { DEFAULT_SUMMARY_MODEL } from "./llm.js";
import { createOpenAISummarizer } from "./openai.js";
import type { Summarizer } from "./types.js";
import { isInstalled } from "../optional-dependency.js";

/** The code of the warning for a key without the package. */
export const NO_OPENAI_PACKAGE_WARNING = "LANGGRAPH_COMPACTION_NO_OPENAI";
let warned = false;

function warnOnce(): void {
  if (warned) return;
  warned = true;
  process.emitWarning(
    "OPENAI_API_KEY is set but @langchain/openai is not installed: compaction summarizes with the offline ExtractiveSummarizer. Run npm install @langchain/openai to summarize with OpenAI, or pass a summarizer.",
    { code: NO_OPENAI_PACKAGE_WARNING },
  );
}

/**
 * The summarizer used when none is given: an `LlmSummarizer` over `ChatOpenAI` when `OPENAI_API_KEY` is set
 * (model `SUMMARY_MODEL`, default gpt-4o-mini; `OPENAI_BASE_URL` for any compatible server), otherwise the offline
 * `ExtractiveSummarizer`. With the key set but `@langchain/openai` not installed, the offline one, and a process
 * warning (once) saying so: a missing package never stops compaction.
 */
export function createDefaultSummarizer(
  { env = process.env, counter }: { env?: Record<string, string | undefined>; counter?: TokenCounter } = {},
): Summarizer {
  const apiKey = env.OPENAI_API_KEY;
  if (!apiKey) return new ExtractiveSummarizer({ counter });
  if (!isInstalled("@langchain/openai")) {
    warnOnce();
    return new ExtractiveSummarizer({ counter });
  }
  return createOpenAISummarizer({
    apiKey,
    model: env.SUMMARY_MODEL || env.OPENAI_MODEL || DEFAULT_SUMMARY_MODEL,
    baseURL: env.OPENAI_BASE_URL || undefined,
  });
}
