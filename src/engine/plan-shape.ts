/** What a plan is asked (`PlanOptions`) and what it says (`CompactionPlan`); plan.ts computes it. */
import type { BaseMessage } from "@langchain/core/messages";
import type { PinPredicate } from "../messages/pins.js";
import type { HistoryProblem } from "../messages/validate.js";
import type { TokenCounter } from "../tokens/token-counter.js";

export interface PlanOptions {
  /** Share (0 < r < 1) of the oldest non-system messages to summarize. @default 0.5 */
  compactionRatio?: number;
  /** Instead of a ratio: keep the newest messages that fit in this many tokens, summarize the rest. */
  keepTokens?: number;
  /**
   * Instead of a ratio: keep at least the newest this many messages verbatim (the cut falls between units, so a tool
   * call and its results stay together), summarize the rest. `keepTokens` wins when both are given.
   */
  keepMessages?: number;
  /**
   * Instead of a ratio: compact the whole history down to about this many tokens — the leading system messages, the
   * summary's budget (`summaryTokens`) and the newest messages that fit in what is left, kept verbatim.
   * `keepTokens` wins when both are given.
   */
  targetTokens?: number;
  /** Counter used for the token figures. @default a TokenCounter for "gpt-4o" */
  counter?: TokenCounter;
  /** `counter`'s count of each of the messages, when the caller has counted them already (its length must match). */
  counts?: readonly number[];
  /**
   * The summary's budget in tokens, instead of the 20% rule (never more than MAX_SUMMARY_SHARE of the summarized
   * tokens).
   * CompactingSupervisor sets it from its limit (see its `summaryTokens` option).
   */
  summaryTokens?: number;
  /**
   * Messages never summarized besides those marked with `pinMessage` (`additional_kwargs.pinned`): a pinned message
   * before the cut is kept verbatim right after the summary, with the rest of its unit (tool calls stay paired).
   */
  pinned?: PinPredicate;
}

export interface CompactionPlan {
  /** True when there is something to summarize and the planned history is valid. */
  executable: boolean;
  /** Why the plan is (or is not) executable, in one sentence, for dry runs and reports. */
  reason: string;
  system: BaseMessage[];
  previousSummary: BaseMessage | undefined;
  /** Messages to fold into the summary, oldest first. */
  summarize: BaseMessage[];
  /** Messages kept verbatim after the summary: the pinned ones from before the cut, then every message after it. */
  keep: BaseMessage[];
  /**
   * How many leading messages of the input the plan consumes: the system messages, any previous summary and the
   * body up to the cut. `keep` is the pinned messages among them followed by `input.slice(prefixLength)`, so a
   * summary stays valid for any history that starts with the same prefix (a rebase, see rebase.ts).
   */
  prefixLength: number;
  /** The pinned messages from before the cut, kept right after the summary. */
  pinned: BaseMessage[];
  /** The last message before the cut (summarized or pinned): the one the messages after the cut followed. */
  lastBeforeCut: BaseMessage | undefined;
  /** Atomic units in the body, and how many go to the summary. */
  units: { total: number; summarized: number };
  tokens: {
    before: number;
    summarized: number;
    kept: number;
    system: number;
    /** Budget given to the summarizer. */
    summaryBudget: number;
    /** Estimate: system + summary budget + kept. */
    afterEstimate: number;
  };
  /** Problems `validateHistory` found in the planned result (empty when valid). */
  problems: HistoryProblem[];
  /**
   * Set when the plan keeps less than the `keep` asked for (which would not end under the ceiling, or keeps the whole
   * thread): what was asked, in words ("keep.messages 1000").
   */
  keptLess?: string;
  /** Why it kept less: what was asked is the whole thread, or would not end under the ceiling. */
  keptLessWhy?: "whole" | "ceiling";
}
