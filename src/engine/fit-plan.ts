/**
 * Fitting a plan under the policy's limits: the cut the policy asks for (its budgets in the provider's tokens,
 * divided by a calibrated count's ratio to plan in the tokenizer's), the limits every entry point ends under, and the
 * harder cut when the policy's would not end under them.
 */
import { SEARCHABLE_SUMMARY_HEADER, SUMMARY_HEADER } from "../messages/summary-message.js";
import { TOKENS_PER_MESSAGE } from "../tokens/chat-format.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import type { CompactOverrides, PrepareOptions } from "./manager-options.js";
import type { CompactionPlan } from "./plan.js";
import { planOptionsOf, type CompactionPolicy } from "./policy.js";

/** Tokens OpenAI adds around the summary message: its separators (tokens/chat-format.ts) and its role (one token). */
const MESSAGE_FRAMING_TOKENS = TOKENS_PER_MESSAGE + 1;

/**
 * The cut of a plan: the one `overrides` gives (ratio, keepTokens or targetTokens) replaces the policy's own — a ratio
 * asked for by one call is not overruled by a default target; the policy's budgets divided by `tokenRatio`.
 */
export function cutOf(policy: CompactionPolicy, overrides: CompactOverrides): Pick<CompactOverrides, "compactionRatio" | "keepTokens" | "keepMessages" | "targetTokens" | "summaryTokens"> {
  const ownCut = overrides.compactionRatio !== undefined || overrides.keepTokens !== undefined || overrides.keepMessages !== undefined || overrides.targetTokens !== undefined;
  const options = planOptionsOf(policy);
  const ratio = overrides.tokenRatio ?? 1;
  const scaled = (tokens: number | undefined) => (tokens === undefined || ratio === 1 ? tokens : Math.max(1, Math.floor(tokens / ratio)));
  return {
    compactionRatio: overrides.compactionRatio ?? options.compactionRatio,
    keepTokens: ownCut ? overrides.keepTokens : scaled(options.keepTokens),
    keepMessages: ownCut ? overrides.keepMessages : options.keepMessages,
    targetTokens: ownCut ? overrides.targetTokens : scaled(options.targetTokens),
    summaryTokens: overrides.summaryTokens ?? scaled(options.summaryTokens),
  };
}

/** With a limit, every entry point ends where the wrapper does: under the ceiling, never above the limit. */
export function withinPolicy(policy: CompactionPolicy, given: PrepareOptions): PrepareOptions {
  const { tokenLimit, ceiling } = policy;
  const ratio = given.tokenRatio ?? 1;
  const scaled = (tokens: number | undefined) => (tokens === undefined ? undefined : Math.max(1, Math.floor(tokens / ratio)));
  return tokenLimit === undefined || given.maxTokensAfter !== undefined || given.preferTokensAfter !== undefined ? given : { ...given, maxTokensAfter: scaled(tokenLimit), preferTokensAfter: scaled(ceiling) };
}

/** Tokens a summary message adds besides its text: the header line and the message framing. */
export function summaryOverhead(counter: TokenCounter, announce: boolean): number {
  return counter.countText(`${announce ? SEARCHABLE_SUMMARY_HEADER : SUMMARY_HEADER}\n`) + MESSAGE_FRAMING_TOKENS;
}

/**
 * A plan that ends under `preferTokensAfter` (the plan, else the hardest cut from `replan`: everything before the
 * latest turn), else one that ends under `maxTokensAfter` (saying it ends above the aim); or why none does, and then
 * nothing is summarized. The running summary's budget is never shrunk to make a plan fit: that drops facts for good.
 */
export function planWithin(plan: CompactionPlan, options: PrepareOptions, overhead: number, replan: (overrides: PrepareOptions) => CompactionPlan): CompactionPlan | string {
  const max = options.maxTokensAfter ?? Infinity;
  const prefer = Math.min(options.preferTokensAfter ?? max, max);
  const estimate = (candidate: CompactionPlan) => candidate.tokens.afterEstimate + overhead;
  if (estimate(plan) <= prefer) return plan;
  const harder = replan({ ...options, keepTokens: 0, keepMessages: undefined, targetTokens: undefined });
  if (harder.executable && estimate(harder) <= prefer) return { ...harder, reason: `${harder.reason}; cut harder to end under ${prefer} tokens` };
  const best = harder.executable && estimate(harder) < estimate(plan) ? harder : plan;
  if (estimate(plan) <= max || estimate(best) <= max) {
    const chosen = estimate(plan) <= max ? plan : best;
    return { ...chosen, reason: `${chosen.reason}; ends at about ${estimate(chosen)} tokens, above the ${prefer} aimed at (the latest turn and the summary alone take that much)` };
  }
  return (
    `compacting would leave about ${estimate(best)} tokens (${best.tokens.system} system, ${best.tokens.kept} kept verbatim or pinned, ` +
    `a summary of at least ${best.tokens.summaryBudget}), not under the ceiling of ${max}`
  );
}
