/** What `compactionHealth(threadId)` tells of a thread: its counts, its summary and its breaker. */
import type { BreakerHealth } from "../../engine/circuit-breaker.js";
import type { ProviderUsage } from "../../engine/calibration.js";
import type { SummarizerChoice } from "../../summarizers/default.js";
import type { SummarizerTokens } from "../../engine/summarizer-tokens.js";

/** A thread's compaction health (`compactionHealth`). */
export interface CompactionHealth extends BreakerHealth {
  /** Turns that ended over `tokenLimit` since a compaction last landed (a summary in flight counts). */
  turnsOverLimit: number;
  /** The summary of this thread: being computed, ready to land at the next gap between turns, or none. */
  summary: "none" | "computing" | "ready";
  /** Which summarizer compactions use, and why (the default is chosen once, at construction). */
  summarizer: SummarizerChoice;
  /**
   * The thread's count after its last turn through this wrapper (calibrated where replies carry usage figures;
   * absent while the stored size of a thread the wrapper has not counted yet proves it under the limit, as it then
   * is not counted), and the provider's figures of that turn's last call when its reply carried them (prompt cache
   * reads and writes included): docs/token-counting.md.
   */
  tokens?: number;
  providerUsage?: ProviderUsage;
  /**
   * The provider's prompt cache this wrapper's compactions of the thread broke, in tokens: the sum of their reports'
   * `rewrittenTokens` (each compaction makes the next call write, or pay in full, everything from the summary on).
   */
  rewrittenTokens: number;
  /** Compactions of the thread that kept less than `keep` asked for, which would not have ended under the ceiling. */
  keptLess: number;
  /**
   * The tokens of the summarizer's own model calls for the thread (LlmSummarizer's, as its provider reported them;
   * zero for a summarizer without a model), summaries that did not land included.
   */
  summarizerTokens: SummarizerTokens;
}
