/**
 * ExtractiveSummarizer: offline, deterministic, no model and no model files. It keeps the sentences that say the
 * most that is distinctive in this thread, within a token budget, for conversations and tool-heavy agent threads
 * alike, in any language:
 *
 * - salience from the thread's own vocabulary: rare content words, numbers, identifiers (extractive/vocabulary.ts);
 * - filler suppressed: greetings, thanks, agreement, questions with no content (extractive/candidates.ts);
 * - what people said kept in note style, without the thread's grammar words (extractive/compact.ts);
 * - near-duplicates merged, value per token, a fair share of the budget for the new segment against the lines
 *   carried from the previous summary (extractive/select.ts);
 * - each line with its speaker, under its date when the thread spans several days; a header stating the whole
 *   coverage, the previous summary's included (extractive/layout.ts).
 *
 * A running summary folds the previous one in: its lines are candidates again, scored like new ones. The algorithm
 * (extractive/summarize.ts) loads on the first summary: an application that summarizes with a model never loads it.
 */
import { argument } from "../options/check.js";
import { flag, integer, number } from "../options/rules.js";
import { TokenCounter } from "../tokens/token-counter.js";
import type { SummarizeInput, Summarizer } from "./types.js";
import type { ExtractiveSettings, ExtractiveSummarizerOptions } from "./extractive/options.js";

export type { ExtractiveSummarizerOptions } from "./extractive/options.js";

export class ExtractiveSummarizer implements Summarizer {
  readonly name = "extractive";
  readonly model = undefined;
  /** Any length: it selects sentences (and leaves words out), it does not generate them. */
  readonly maxTokens = Number.POSITIVE_INFINITY;
  private readonly settings: ExtractiveSettings;

  constructor({
    counter,
    maxLineLength = 240,
    recencyWeight = 1,
    compactSentences = true,
  }: ExtractiveSummarizerOptions = {}) {
    argument("maxLineLength", maxLineLength, integer(40));
    argument("recencyWeight", recencyWeight, number("a number from 1 to 100", { from: 1, to: 100 }));
    argument("compactSentences", compactSentences, flag);
    this.settings = { counter: counter ?? new TokenCounter(), maxLineLength, recencyWeight, compactSentences };
  }

  async summarize(input: SummarizeInput): Promise<string> {
    const { summarizeExtractive } = await import("./extractive/summarize.js");
    return summarizeExtractive(this.settings, input);
  }
}
