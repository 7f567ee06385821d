/**
 * sliding-window: keep the leading system messages, the first `keepFirst` user messages (the task as stated), every
 * pinned message, and the newest messages that fit the budget — then, if room remains, fill the gap with the newest
 * earlier units that still fit. Whole units only, so tool calls stay paired; the last unit is always kept.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { parseOptions } from "../options/check.js";
import { SLIDING_WINDOW_FIELDS } from "../options/strategy-fields.js";
import { sharedCounter } from "../tokens/shared-counter.js";
import { isSummaryMessage } from "../messages/summary-message.js";
import { describeUnits, keepUnits, overheadOf, type UnitInfo } from "./selection.js";
import type { Strategy, StrategyContext, StrategyResult } from "./types.js";

export interface SlidingWindowOptions {
  /** First user messages always kept. @default 1 */
  keepFirst?: number;
}

export const SLIDING_WINDOW_DESCRIPTION =
  "keep the system prompt, the first user message(s), pinned messages and the newest messages within the budget";

export function slidingWindow(options: SlidingWindowOptions = {}): Strategy {
  const { keepFirst = 1 } = parseOptions("sliding-window", SLIDING_WINDOW_FIELDS, options);
  return {
    name: "sliding-window",
    description: SLIDING_WINDOW_DESCRIPTION,
    async apply(
      messages: readonly BaseMessage[],
      { budget, counter = sharedCounter() }: StrategyContext,
    ): Promise<StrategyResult> {
      const before = counter.countMessages(messages);
      if (before <= budget) {
        return {
          messages: [...messages],
          report: {
            strategy: "sliding-window",
            tokensBefore: before,
            tokensAfter: before,
            changed: 0,
            note: `under the budget (${before} <= ${budget} tokens)`,
          },
        };
      }
      const units = describeUnits(messages, counter);
      const kept = new Set<UnitInfo>();
      let used = overheadOf(messages, counter);
      const take = (unit: UnitInfo) => {
        kept.add(unit);
        used += unit.tokens;
      };
      let firsts = 0;
      for (const unit of units) {
        const summary = unit.kind === "message" && isSummaryMessage(messages[unit.start]);
        const human = !summary && unit.kind === "message" && messages[unit.start]!.getType() === "human";
        // Summaries (and removal markers) stand for what came before: always kept, never counted as a first message.
        if (unit.leading || unit.pinned || summary || (human && firsts < keepFirst)) {
          if (human && !unit.leading && !unit.pinned) firsts++;
          take(unit);
        }
      }
      if (units.length > 0 && !kept.has(units.at(-1)!)) take(units.at(-1)!);
      // Newest first: the recent tail, then whatever earlier units still fit.
      for (let index = units.length - 2; index >= 0; index--) {
        const unit = units[index]!;
        if (kept.has(unit) || used + unit.tokens > budget) continue;
        take(unit);
      }
      const result = keepUnits(messages, units, kept);
      const after = counter.countMessages(result);
      return {
        messages: result,
        report: {
          strategy: "sliding-window",
          tokensBefore: before,
          tokensAfter: after,
          changed: messages.length - result.length,
          note: `kept ${result.length} of ${messages.length} messages${after > budget ? ` (still ${after} tokens: the kept first, pinned and last messages alone exceed ${budget})` : ""}`,
        },
      };
    },
  };
}
