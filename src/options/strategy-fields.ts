/** The options of the strategies and of the context-trim hook, one rule each. */
import { z } from "zod";
import { SHARED_FIELDS, tokenLimit } from "./fields.js";
import { fn, integer, ratio, satisfying, text, withMethods, type Rule } from "./rules.js";

const count = integer(0);
const pinned = SHARED_FIELDS.pinned;

export const CLEAR_TOOL_RESULTS_FIELDS = { keep: count, minTokens: count, pinned } as const satisfies Record<
  string,
  Rule
>;

export const SLIDING_WINDOW_FIELDS = { keepFirst: count, pinned } as const satisfies Record<string, Rule>;

export const SMART_TRIM_FIELDS = {
  keep: count,
  clipTokens: integer(1),
  excerpt: z.tuple([count, count], { error: "[head, tail] character counts >= 0" }),
  pinned,
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
  budget: tokenLimit,
  reserveTokens: count,
  strategy,
  model: text(),
  counter: withMethods(["countMessages"], "a TokenCounter"),
  onTrim: fn(),
} as const satisfies Record<string, Rule>;
