/** The options of the strategies and of the context-trim hook, one rule each. */
import { z } from "zod";
import { fn, integer, number, ratio, satisfying, text, withMethods, type Rule } from "./rules.js";

const count = integer(0);

export const CLEAR_TOOL_RESULTS_FIELDS = { keep: count, minTokens: count } as const satisfies Record<string, Rule>;

export const SLIDING_WINDOW_FIELDS = { keepFirst: count } as const satisfies Record<string, Rule>;

export const SMART_TRIM_FIELDS = {
  keep: count,
  clipTokens: integer(1),
  excerpt: z.tuple([count, count], { error: "[head, tail] character counts >= 0" }),
} as const satisfies Record<string, Rule>;

export const SUMMARIZE_FIELDS = {
  summarizer: withMethods(["summarize"], "an object with summarize()"),
  keepShare: ratio,
} as const satisfies Record<string, Rule>;

/** A strategy, a pipeline of them, or a name. */
export const strategy = satisfying(
  (value) =>
    typeof value === "string" ||
    Array.isArray(value) ||
    typeof (value as { apply?: unknown } | null)?.apply === "function",
  'a strategy, a pipeline (array), or a name such as "clear-tool-results"',
);

export const CONTEXT_TRIM_HOOK_FIELDS = {
  budget: number("a positive number of tokens, or a fraction (0 < x <= 1) of the model's context window", { above: 0 }),
  reserveTokens: count,
  strategy,
  model: text(),
  counter: withMethods(["countMessages"], "a TokenCounter"),
  onTrim: fn(),
} as const satisfies Record<string, Rule>;
