/**
 * The within-turn guard: a `preModelHook` for `createReactAgent` (and the sub-agents of a supervisor). A single
 * turn with many tool calls can outgrow the window before any between-turn compaction runs; before every model
 * call this hook gives the model a view of the history fitted to the budget (`llmInputMessages`) by the same
 * strategies and counter, without rewriting the stored history.
 */
import { BaseMessage } from "@langchain/core/messages";
import { argument, parseOptions } from "../options/check.js";
import { CONTEXT_TRIM_HOOK_FIELDS } from "../options/strategy-fields.js";
import { never } from "../options/rules.js";
import { resolveStrategy, type StrategyInput } from "./registry.js";
import type { StrategyReport } from "./types.js";
import { tokensOfSize } from "../engine/policy.js";
import { DEFAULT_MODEL, MIN_LIMIT_TOKENS } from "../tokens/models.js";
import { TokenCounter } from "../tokens/token-counter.js";

export interface ContextTrimHookOptions {
  /**
   * What the model may receive (the stored history may be larger): `{ tokens: n }`, or `{ fraction: f }` of the
   * model's context window.
   */
  budget: { tokens: number } | { fraction: number };
  /** Tokens reserved for what the agent adds after the hook (its prompt, tool definitions). @default 0 */
  reserveTokens?: number;
  /** @default clear-tool-results (keep 3) → smart-trim */
  strategy?: StrategyInput;
  /** The model the agent talks to: picks the tokenizer and the window for a fractional budget. @default "gpt-4o" */
  model?: string;
  counter?: TokenCounter;
  /** Called when a model call got a trimmed view. */
  onTrim?: (report: StrategyReport) => void;
}

export const DEFAULT_HOOK_STRATEGY: StrategyInput = ["clear-tool-results", "smart-trim"];

/**
 * A `preModelHook` that fits the model's view of the history to `budget` before every model call; the stored
 * history is left as it is (compacting it is the wrapper's job, between turns).
 */
export function createContextTrimHook(options: ContextTrimHookOptions) {
  const {
    model = DEFAULT_MODEL,
    budget: size,
    reserveTokens: reserve = 0,
  } = parseOptions("createContextTrimHook", CONTEXT_TRIM_HOOK_FIELDS, options);
  // Required: the schema's fields are optional, this one is not.
  if (size === undefined) argument("budget", size, CONTEXT_TRIM_HOOK_FIELDS.budget);
  const budget = tokensOfSize(size, "budget", model)! - reserve;
  const after = `at least ${MIN_LIMIT_TOKENS} tokens once resolved, after reserveTokens (${reserve})`;
  if (budget < MIN_LIMIT_TOKENS) argument("budget", size, never(after));
  const strategy = resolveStrategy(options.strategy ?? DEFAULT_HOOK_STRATEGY);
  const counter = options.counter ?? new TokenCounter({ model });

  return async function compactionHook(state: {
    messages: BaseMessage[];
  }): Promise<{ llmInputMessages: BaseMessage[] }> {
    const messages = Array.isArray(state?.messages) ? state.messages : [];
    if (counter.countMessages(messages) <= budget) return { llmInputMessages: messages };
    const { messages: view, report } = await strategy.apply(messages, { budget, counter });
    options.onTrim?.(report);
    return { llmInputMessages: view };
  };
}
