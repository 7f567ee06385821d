/**
 * summarize: the HistoryManager's running summary as a strategy — the oldest messages become one summary (folding
 * in a previous one). Applied by a runtime (the wrapper's `strategy` option), it asks the runtime's engine
 * (`context.compact`), so the cut, the summary's budget, role, timeout and fallback, and the ceiling are those of
 * every other entry point; applied alone (a view of the history for a hook), it keeps the newest messages that fit
 * in `keepShare` of the budget. `none` leaves the history as it is.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { DEFAULT_COMPACTION_RATIO, planCompaction } from "../engine/plan.js";
import { summarizePlan, type CompactedMessages } from "../engine/summarize-plan.js";
import { ExtractiveSummarizer } from "../summarizers/extractive.js";
import type { Summarizer } from "../summarizers/types.js";
import { parseOptions } from "../options/check.js";
import { SUMMARIZE_FIELDS } from "../options/strategy-fields.js";
import { sharedCounter } from "../tokens/shared-counter.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import type { Strategy, StrategyContext, StrategyResult } from "./types.js";

export interface SummarizeOptions {
  /**
   * Applied alone (a view for a hook). Under a runtime the runtime's summarizer writes the summary (give it as the
   * wrapper's `summarizer`), as it does for every entry point. @default ExtractiveSummarizer (offline)
   */
  summarizer?: Summarizer;
  /** Applied alone (no runtime engine): share of the budget kept verbatim after the summary. @default 0.5 */
  keepShare?: number;
}

export const SUMMARIZE_DESCRIPTION =
  "replace the oldest messages with a running summary (the HistoryManager's; the default)";
export const NONE_DESCRIPTION = "leave the history unchanged";

export function summarize(options: SummarizeOptions = {}): Strategy {
  // One default summarizer per counter, kept across calls as the strategy's summaries build on each other.
  const defaults = new WeakMap<TokenCounter, Summarizer>();
  const summarizerFor = (counter: TokenCounter): Summarizer => {
    let summarizer = defaults.get(counter);
    if (!summarizer) defaults.set(counter, (summarizer = new ExtractiveSummarizer({ counter })));
    return summarizer;
  };
  const { keepShare = 0.5 } = parseOptions("summarize", SUMMARIZE_FIELDS, options);
  return {
    name: "summarize",
    description: SUMMARIZE_DESCRIPTION,
    async apply(
      messages: readonly BaseMessage[],
      { budget, counter = sharedCounter(), replacedCheckpointId, compact }: StrategyContext,
    ): Promise<StrategyResult> {
      const before = counter.countMessages(messages);
      const unchanged = (note: string): StrategyResult => ({
        messages: [...messages],
        report: { strategy: "summarize", tokensBefore: before, tokensAfter: before, changed: 0, note },
      });
      if (before <= budget) return unchanged(`under the budget (${before} <= ${budget} tokens)`);
      let compacted: CompactedMessages;
      if (compact) {
        // The runtime's engine: the same plan, summary and ceiling as every other entry point.
        const result = await compact(messages, replacedCheckpointId);
        if ("skipped" in result) return unchanged(`nothing to summarize: ${result.skipped}`);
        compacted = result;
      } else {
        // Alone: the HistoryManager's cut, pure, within `keepShare` of the budget.
        const plan = planCompaction(messages, {
          compactionRatio: DEFAULT_COMPACTION_RATIO,
          keepTokens: Math.max(0, Math.floor(budget * keepShare)),
          summaryTokens: Math.max(64, Math.floor(budget * (1 - keepShare) * 0.5)),
          counter,
        });
        if (!plan.executable) return unchanged(`nothing to summarize: ${plan.reason}`);
        const summarizer = options.summarizer ?? summarizerFor(counter);
        const settings = {
          summarizer,
          counter,
          summaryLog: "rewrite" as const,
          recall: { announce: false },
        };
        compacted = await summarizePlan(settings, plan, replacedCheckpointId);
      }
      const after = counter.countMessages(compacted.messages);
      if (after >= before) return unchanged(`a summary would not shrink the history (${after} >= ${before} tokens)`);
      return {
        messages: compacted.messages,
        report: {
          strategy: "summarize",
          tokensBefore: before,
          tokensAfter: after,
          changed: compacted.plan.summarize.length,
          note: compacted.plan.reason,
        },
      };
    },
  };
}

export function none(options: Record<string, never> = {}): Strategy {
  parseOptions("none", {}, options);
  return {
    name: "none",
    description: NONE_DESCRIPTION,
    async apply(
      messages: readonly BaseMessage[],
      { counter = sharedCounter() }: StrategyContext,
    ): Promise<StrategyResult> {
      const tokens = counter.countMessages(messages);
      return {
        messages: [...messages],
        report: { strategy: "none", tokensBefore: tokens, tokensAfter: tokens, changed: 0, note: "unchanged" },
      };
    },
  };
}
