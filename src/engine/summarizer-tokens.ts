/**
 * What a compaction's summary cost in its summarizer's own model calls, as the provider reported them (LlmSummarizer;
 * absent for a summarizer without a model, the offline default's). A failed attempt counts: it was billed.
 */
export interface SummarizerTokens {
  input: number;
  output: number;
  /** Of `input`, read from the provider's prompt cache. */
  cachedInput: number;
  calls: number;
}

/** The sum of two summarizers' token figures (undefined when neither reported any). */
export function addSummarizerTokens(
  a: SummarizerTokens | undefined,
  b: SummarizerTokens | undefined,
): SummarizerTokens | undefined {
  if (!a || !b) return a ?? b;
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cachedInput: a.cachedInput + b.cachedInput,
    calls: a.calls + b.calls,
  };
}
