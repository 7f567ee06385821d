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

const BUDGET_RULE = "{ tokens: n } or { fraction: f } (0 < f <= 1 of the model's context window), exactly one";

export const CONTEXT_TRIM_HOOK_FIELDS = {
  budget: z
    .strictObject(
      {
        tokens: integer(1, { says: "a positive integer number of tokens" }).optional(),
        fraction: number("a share of the window, 0 < f <= 1", { above: 0, to: 1 }).optional(),
      },
      { error: BUDGET_RULE },
    )
    .refine((size) => (size.tokens === undefined) !== (size.fraction === undefined), { error: BUDGET_RULE }),
  reserveTokens: count,
  strategy,
  model: text(),
  counter: withMethods(["countMessages"], "a TokenCounter"),
  onTrim: fn(),
} as const satisfies Record<string, Rule>;
