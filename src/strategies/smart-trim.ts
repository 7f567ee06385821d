/**
 * smart-trim: remove the least valuable content first, in three passes, each only while the history is over the
 * budget:
 * 1. repeated text — an older tool result or message whose text (>= 20 tokens) reappears later is cleared;
 * 2. old bulky tool outputs — results above `clipTokens`, except the newest `keep`, are clipped to a head and tail
 *    excerpt, in order of tokens × age (the oldest, largest first);
 * 3. whole units are dropped in order of value per token, value = weight(kind) × (0.5 + position), where position
 *    runs from 0 (oldest) to 1 (newest) and weight is 1 for user messages, 0.8 for answers, 0.4 for tool exchanges
 *    and 0.2 for handoffs.
 * Never touched: leading system messages, pinned messages, the last unit. Tool calls stay paired.
 */
import { BaseMessage, ToolMessage } from "@langchain/core/messages";
import { parseOptions } from "../options/check.js";
import { SMART_TRIM_FIELDS } from "../options/strategy-fields.js";
import { contentText } from "../messages/content.js";
import { sharedCounter } from "../tokens/shared-counter.js";
import { editOf, editToolMessage, excerpt, measure } from "./edit.js";
import { isPinned } from "../messages/pins.js";
import { describeUnits, keepUnits, type UnitInfo } from "./selection.js";
import type { Strategy, StrategyContext, StrategyResult } from "./types.js";

export interface SmartTrimOptions {
  /** Newest tool results never clipped. @default 3 */
  keep?: number;
  /** Tool results above this many tokens may be clipped. @default 300 */
  clipTokens?: number;
  /** Characters kept from the start and the end of a clipped output. @default [1200, 600] */
  excerpt?: [number, number];
}

export const SMART_TRIM_DESCRIPTION =
  "clear repeated text, clip old bulky tool outputs, then drop the least valuable units (documented score)";

const WEIGHT: Record<string, number> = { human: 1, ai: 0.8, "tool-exchange": 0.4, handoff: 0.2 };

export function smartTrim(options: SmartTrimOptions = {}): Strategy {
  const {
    keep = 3,
    clipTokens = 300,
    excerpt: [head, tail] = [1200, 600],
  } = parseOptions("smart-trim", SMART_TRIM_FIELDS, options);
  return {
    name: "smart-trim",
    description: SMART_TRIM_DESCRIPTION,
    async apply(
      messages: readonly BaseMessage[],
      { budget, counter = sharedCounter() }: StrategyContext,
    ): Promise<StrategyResult> {
      const result = [...messages];
      const before = counter.countMessages(result);
      let tokens = before;
      let changed = 0;
      const replace = (index: number, next: ToolMessage) => {
        tokens += counter.countMessage(next) - counter.countMessage(result[index]!);
        result[index] = next;
        changed++;
      };
      const editable = (index: number) =>
        ToolMessage.isInstance(result[index]) && !editOf(result[index]!) && !isPinned(result[index]!, index);
      // 1. Repeated text: clear older copies of a tool output that appears again later.
      const seen = new Map<string, number>();
      for (let index = result.length - 1; index >= 0 && tokens > budget; index--) {
        const text = contentText(result[index]!);
        if (counter.countText(text) < 20) continue;
        if (seen.has(text) && editable(index)) {
          const size = measure(result[index]!, counter);
          const message = result[index] as ToolMessage;
          replace(
            index,
            editToolMessage(
              message,
              `[same output as a later call of ${message.name ?? "this tool"}; cleared to save context]`,
              {
                strategy: "smart-trim",
                action: "cleared",
                originalTokens: size.tokens,
                originalLines: size.lines,
                originalChars: size.chars,
              },
            ),
          );
        } else {
          seen.set(text, index);
        }
      }
      // 2. Old bulky tool outputs, oldest and largest first.
      const tools = result.flatMap((message, index) => (ToolMessage.isInstance(message) ? [index] : []));
      const old = tools.slice(0, Math.max(0, tools.length - keep)).filter(editable);
      const ranked = old
        .map((index) => ({ index, size: measure(result[index]!, counter) }))
        .filter(({ size }) => size.tokens > clipTokens)
        .sort((a, b) => b.size.tokens * (result.length - b.index) - a.size.tokens * (result.length - a.index));
      for (const { index, size } of ranked) {
        if (tokens <= budget) break;
        const clipped = excerpt(size.text, head, tail);
        if (clipped.length >= size.text.length) continue;
        replace(
          index,
          editToolMessage(result[index] as ToolMessage, clipped, {
            strategy: "smart-trim",
            action: "clipped",
            originalTokens: size.tokens,
            originalLines: size.lines,
            originalChars: size.chars,
          }),
        );
      }
      // 3. Drop whole units, least value per token first.
      let final = result;
      if (tokens > budget) {
        const units = describeUnits(result, counter);
        const kept = new Set<UnitInfo>(units);
        const value = (unit: UnitInfo, position: number) => {
          const kind = unit.kind === "message" ? result[unit.start]!.getType() : unit.kind;
          return ((WEIGHT[kind] ?? 0.5) * (0.5 + position)) / Math.max(1, unit.tokens);
        };
        const droppable = units
          .map((unit, index) => ({ unit, score: value(unit, units.length > 1 ? index / (units.length - 1) : 1) }))
          .filter(({ unit }, index) => !unit.leading && !unit.pinned && index < units.length - 1)
          .sort((a, b) => a.score - b.score);
        for (const { unit } of droppable) {
          if (tokens <= budget) break;
          kept.delete(unit);
          tokens -= unit.tokens;
          changed += unit.end - unit.start;
        }
        final = keepUnits(result, units, kept);
        tokens = counter.countMessages(final);
      }
      return {
        messages: final,
        report: {
          strategy: "smart-trim",
          tokensBefore: before,
          tokensAfter: tokens,
          changed,
          note:
            before <= budget
              ? `under the budget (${before} <= ${budget} tokens)`
              : `${changed} message(s) cleared, clipped or dropped${tokens > budget ? `; still ${tokens} tokens, over ${budget}` : ""}`,
        },
      };
    },
  };
}
