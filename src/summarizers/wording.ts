/**
 * The summary's wording, in the words of langchain's `summarizationMiddleware`: `summaryPrefix` (the text the summary
 * message starts with), `summaryPrompt` (the instruction the LLM summarizer gives its model) and
 * `trimTokensToSummarize` (the newest this many tokens of a span are what the model reads). The prompt and the trim
 * shape the LLM summarizer the library builds (from `model`, `summaryModel` or OPENAI_API_KEY in `env`); the prefix,
 * every summary message. One rule each, for every runtime.
 */
import { argument } from "../options/check.js";
import { absent } from "../options/rules.js";

export interface SummaryWording {
  /**
   * The line the summary message starts with, before the summary (langchain's `summaryPrefix`). @default
   * "Summary of the earlier conversation (older messages were compacted):" (and, when recall is announced, that the
   * search_history tool finds any of them)
   */
  summaryPrefix?: string;
  /**
   * The LLM summarizer's instruction (langchain's `summaryPrompt`). With `{messages}` in it, the whole request is this
   * text with the span (and the previous summary) put there, framed as data; without, it is the system prompt and the
   * span follows as data. `{budget}` is replaced by the summary's budget in tokens. Needs a summarizer the library
   * builds (`model`, `summaryModel`, or OPENAI_API_KEY in `env`). @default the library's sectioned prompt
   */
  summaryPrompt?: string;
  /**
   * The LLM summarizer reads only the newest messages of a span that fit in this many tokens (langchain's
   * `trimTokensToSummarize`); the rest stay in the transcript and the recall index, not in the summary. Needs a
   * summarizer the library builds. @default no trimming (a span is bounded by the limit already)
   */
  trimTokensToSummarize?: number;
}

/** The wording `options` give (checked with the other options: options/fields.ts), the ones not given left out. */
export function wordingOf(options: SummaryWording): SummaryWording {
  const { summaryPrefix, summaryPrompt, trimTokensToSummarize } = options;
  return {
    ...(summaryPrefix === undefined ? {} : { summaryPrefix }),
    ...(summaryPrompt === undefined ? {} : { summaryPrompt }),
    ...(trimTokensToSummarize === undefined ? {} : { trimTokensToSummarize }),
  };
}

/** The wording that only a summarizer the library builds takes: refused with any other, naming why. */
export function refuseForeignWording(options: SummaryWording, summarizer: string): void {
  const given = (["summaryPrompt", "trimTokensToSummarize"] as const).find((key) => options[key] !== undefined);
  if (given === undefined) return;
  argument(
    given,
    options[given],
    absent(
      `an option of the LLM summarizer the library builds (give the chat model as \`model\`, or OPENAI_API_KEY in \`env\`); the ${summarizer} summarizer has no prompt to shape`,
    ),
  );
}
