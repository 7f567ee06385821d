/**
 * The guard every summary passes before it may be written, whatever produced it: non-empty, not an error message,
 * bounded. A failure is a SUMMARIZER_FAILED error, so the compaction writes nothing.
 */
import { CompactionError } from "../errors.js";

/** Characters per token, for the estimates made without a tokenizer (English text averages about four). */
export const CHARS_PER_TOKEN = 4;

/** Text that looks like a failure rather than a summary. */
const ERROR_LIKE =
  /^\s*(?:error\b|exception\b|traceback\b|i'?m sorry\b|i cannot\b|i can't\b|as an ai\b|rate limit|context_length_exceeded|request failed|internal server error)/i;

export function validateSummaryText(text: string, tokenBudget: number): string {
  const trimmed = text.trim();
  if (trimmed.length === 0) {
    throw new CompactionError({ code: "SUMMARIZER_FAILED", message: "the summarizer returned an empty summary" });
  }
  if (ERROR_LIKE.test(trimmed)) {
    throw new CompactionError({
      code: "SUMMARIZER_FAILED",
      value: trimmed.slice(0, 120),
      message: `the summarizer returned an error message instead of a summary: ${JSON.stringify(trimmed.slice(0, 120))}`,
    });
  }
  // Rough bound without a tokenizer, with generous slack (3x the budget).
  const limit = Math.max(2_000, tokenBudget * CHARS_PER_TOKEN * 3);
  if (trimmed.length > limit) {
    throw new CompactionError({
      code: "SUMMARIZER_FAILED",
      value: trimmed.length,
      message: `the summarizer returned ${trimmed.length} characters, over the bound of ${limit} for a ${tokenBudget}-token budget`,
    });
  }
  return trimmed;
}
