/**
 * Properties of the ExtractiveSummarizer over random histories (tool calls, handoffs, unicode, very long and
 * empty contents, dated and undated messages), with a previous summary folded in or not: the text is within the
 * budget, the same input gives the same text, and an input with content gives at least one line.
 */
import type { BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { history } from "../support/arbitrary-history.js";
import { FUZZ_SEED, size } from "../support/reliability.js";

const counter = new TokenCounter();
const summarizer = new ExtractiveSummarizer({ counter });
const RUNS = size("FUZZ_RUNS", 300, 3000);

/** Gives the non-system messages dates spread over `days` days (0: undated). */
function dated(messages: readonly BaseMessage[], days: number): BaseMessage[] {
  if (days === 0) return [...messages];
  return messages.map((message, index) => {
    if (message.getType() === "system") return message;
    const copy = Object.create(
      Object.getPrototypeOf(message),
      Object.getOwnPropertyDescriptors(message),
    ) as BaseMessage;
    copy.additional_kwargs = {
      ...message.additional_kwargs,
      timestamp: Date.UTC(2024, 0, 1 + Math.floor((index * days) / messages.length)),
    };
    return copy;
  });
}

/** True when some message says anything: a letter or digit in its text, or a tool call (handoffs aside). */
function hasContent(messages: readonly BaseMessage[]): boolean {
  return messages.some((message) => {
    const text = typeof message.content === "string" ? message.content : message.text;
    const calls = (message as BaseMessage & { tool_calls?: Array<{ name: string }> }).tool_calls ?? [];
    if (calls.some((call) => !call.name.startsWith("transfer_"))) return true;
    return !/^Successfully transferred/.test(text) && /[\p{L}\p{N}]/u.test(text);
  });
}

describe("ExtractiveSummarizer properties", () => {
  it(`stays within budget, is deterministic, and is never empty when the input has content (${RUNS} cases, seed ${FUZZ_SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(
        history,
        history,
        fc.integer({ min: 64, max: 3_000 }),
        fc.integer({ min: 0, max: 5 }),
        fc.boolean(),
        async (first, second, tokenBudget, days, fold) => {
          const previousSummary = fold
            ? await summarizer.summarize({ messages: dated(first, days), tokenBudget })
            : undefined;
          const messages = dated(second, days).filter((message) => message.getType() !== "system");
          const input = { previousSummary, messages, tokenBudget };
          const text = await summarizer.summarize(input);
          expect(counter.countText(text)).toBeLessThanOrEqual(tokenBudget);
          expect(await summarizer.summarize(input)).toBe(text);
          expect(text.trim()).not.toBe("");
          // Content in, a line out (with room for a line: sentences are clipped at 240 characters, ~120 tokens).
          if (tokenBudget >= 256 && (hasContent(messages) || (previousSummary ?? "").includes("\n- "))) {
            expect(text.split("\n").some((line) => line.startsWith("- "))).toBe(true);
          }
        },
      ),
      { numRuns: RUNS, seed: FUZZ_SEED },
    );
  });
});
