/**
 * clear-tool-results: replace the oldest tool results with a short placeholder that names the tool and what was
 * cleared, until the history fits the budget, always keeping the newest `keep` results verbatim (the server-side
 * `clear_tool_uses` edit of Anthropic's API does the same). Tool calls stay paired: the result message stays, with
 * the same id and tool call id; only its content changes. Pinned messages are never cleared.
 */
import { BaseMessage, ToolMessage } from "@langchain/core/messages";
import { parseOptions } from "../options/check.js";
import { CLEAR_TOOL_RESULTS_FIELDS } from "../options/strategy-fields.js";
import { sharedCounter } from "../tokens/shared-counter.js";
import { editOf, editToolMessage, measure } from "./edit.js";
import { isPinned } from "../messages/pins.js";
import type { Strategy, StrategyContext, StrategyResult } from "./types.js";

export interface ClearToolResultsOptions {
  /** Newest tool results always kept verbatim. @default 3 */
  keep?: number;
  /** Results at or under this many tokens are not worth clearing. @default 50 */
  minTokens?: number;
  /** Messages never cleared, besides those marked with `pinMessage`. */
}

export const CLEAR_TOOL_RESULTS_DESCRIPTION =
  "replace old tool results with a short placeholder, keeping the newest K (default 3)";

export function placeholder(name: string | undefined, tokens: number, lines: number): string {
  return `[tool result cleared to save context: the output of ${name ?? "a tool"} (${tokens} tokens, ${lines} lines) is in the checkpoint history]`;
}

export function clearToolResults(options: ClearToolResultsOptions = {}): Strategy {
  const { keep = 3, minTokens = 50 } = parseOptions("clear-tool-results", CLEAR_TOOL_RESULTS_FIELDS, options);
  return {
    name: "clear-tool-results",
    description: CLEAR_TOOL_RESULTS_DESCRIPTION,
    async apply(
      messages: readonly BaseMessage[],
      { budget, counter = sharedCounter() }: StrategyContext,
    ): Promise<StrategyResult> {
      const result = [...messages];
      const before = counter.countMessages(result);
      let tokens = before;
      const toolIndexes = result.flatMap((message, index) => (ToolMessage.isInstance(message) ? [index] : []));
      const clearable = toolIndexes.slice(0, Math.max(0, toolIndexes.length - keep));
      let changed = 0;
      for (const index of clearable) {
        if (tokens <= budget) break;
        const message = result[index] as ToolMessage;
        if (editOf(message) || isPinned(message, index)) continue;
        const size = measure(message, counter);
        if (size.tokens <= minTokens) continue;
        const cleared = editToolMessage(message, placeholder(message.name, size.tokens, size.lines), {
          strategy: "clear-tool-results",
          action: "cleared",
          originalTokens: size.tokens,
          originalLines: size.lines,
          originalChars: size.chars,
        });
        tokens += counter.countMessage(cleared) - counter.countMessage(message);
        result[index] = cleared;
        changed++;
      }
      const note =
        before <= budget
          ? `under the budget (${before} <= ${budget} tokens): nothing cleared`
          : `cleared ${changed} of ${clearable.length} older tool results (kept the newest ${Math.min(keep, toolIndexes.length)})${tokens > budget ? `; still ${tokens} tokens, over ${budget}` : ""}`;
      return {
        messages: result,
        report: { strategy: "clear-tool-results", tokensBefore: before, tokensAfter: tokens, changed, note },
      };
    },
  };
}
