/**
 * The summary's wording that only a summarizer the library builds takes, in langchain's words: `summaryPrompt` (the
 * instruction the LLM summarizer gives its model) and `trimTokensToSummarize` (the newest this many tokens of a span
 * are what the model reads). Both shape the LLM summarizer built from `model` or OPENAI_API_KEY in `env`; beside any
 * other summarizer they would do nothing, so they are refused.
 */
import { argument } from "../options/check.js";
import { absent } from "../options/rules.js";

export interface SummaryWording {
  summaryPrompt?: string | undefined;
  trimTokensToSummarize?: number | undefined;
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
