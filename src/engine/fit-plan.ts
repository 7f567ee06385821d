/**
 * Fitting a plan under the policy's limits: the cut the policy asks for (its budgets in the provider's tokens,
 * divided by a calibrated count's ratio to plan in the tokenizer's), the limits every entry point ends under, and the
 * harder cut when the policy's would not end under them.
 */
import { summaryHeader } from "../messages/summary-message.js";
import { TOKENS_PER_MESSAGE } from "../tokens/chat-format.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import type { CompactOverrides, PrepareOptions } from "./manager-options.js";
import { CompactionError } from "../errors.js";
import { DEFAULT_COMPACTION_RATIO, FLOOR_SUMMARY_TOKENS, type CompactionPlan, type PlanOptions } from "./plan.js";

const formatRatio = (ratio: number) =>
  ratio >= 1 ? `${ratio.toPrecision(3)}×` : `${ratio.toPrecision(3)}× (a fraction of)`;
import type { CompactionPolicy } from "./policy.js";

/** Tokens OpenAI adds around the summary message: its separators (tokens/chat-format.ts) and its role (one token). */
const MESSAGE_FRAMING_TOKENS = TOKENS_PER_MESSAGE + 1;

/** Whether a call gives a cut of its own (a ratio, a keep or a target), which replaces the policy's whole. */
function ownsCut(overrides: CompactOverrides): boolean {
  return (
    overrides.compactionRatio !== undefined ||
    overrides.keepTokens !== undefined ||
    overrides.keepMessages !== undefined ||
    overrides.targetTokens !== undefined
  );
}

/**
 * The cut of a plan: the one `overrides` gives (ratio, keepTokens or targetTokens) replaces the policy's own — a ratio
 * asked for by one call is not overruled by a default target; the policy's budgets divided by `tokenRatio`.
 */
export function cutOf(
  policy: CompactionPolicy,
  overrides: CompactOverrides,
): Pick<CompactOverrides, "compactionRatio" | "keepTokens" | "keepMessages" | "targetTokens" | "summaryTokens"> {
  const ownCut = ownsCut(overrides);
  const options = planOptionsOf(policy);
  const ratio = overrides.tokenRatio ?? 1;
  const scaled = (tokens: number | undefined) =>
    tokens === undefined || ratio === 1 ? tokens : Math.max(1, Math.floor(tokens / ratio));
  const budget = options.summaryTokens;
  // A count so far above the tokenizer's leaves no summary room in the tokenizer's tokens: the counter is the cause.
  if (overrides.summaryTokens === undefined && budget !== undefined && scaled(budget)! < FLOOR_SUMMARY_TOKENS)
    throw new CompactionError({
      code: "INVALID_ARGUMENT",
      parameter: "tokenCounter",
      value: ratio,
      message: `the thread's count is ${formatRatio(ratio)} the tokenizer's (tokenCounter, or the provider's usage figures): the summary's budget of ${budget} tokens would be ${scaled(budget)} of the tokenizer's, under the ${FLOOR_SUMMARY_TOKENS} a summary needs; check what tokenCounter returns`,
    });
  return {
    compactionRatio: overrides.compactionRatio ?? options.compactionRatio,
    keepTokens: ownCut ? overrides.keepTokens : scaled(options.keepTokens),
    keepMessages: ownCut ? overrides.keepMessages : options.keepMessages,
    targetTokens: ownCut ? overrides.targetTokens : scaled(options.targetTokens),
    summaryTokens: overrides.summaryTokens ?? scaled(options.summaryTokens),
  };
}

/**
 * The `keep` a plan was asked to honour, in words, when one was (a call's own `keepTokens` or `keepMessages`, else the
 * policy's `keep`): a compaction that cannot honour it and end under the ceiling keeps as much as fits.
 */
export function keepAskedOf(policy: CompactionPolicy, overrides: CompactOverrides): string | undefined {
  if (ownsCut(overrides)) {
    if (overrides.keepMessages !== undefined) return `keep.messages ${overrides.keepMessages}`;
    return overrides.keepTokens === undefined ? undefined : `keep.tokens ${overrides.keepTokens}`;
  }
  const { cut } = policy;
  return cut.by === "messages"
    ? `keep.messages ${cut.messages}`
    : cut.by === "keep"
      ? `keep.tokens ${cut.tokens}`
      : undefined;
}

/** With a limit, every entry point ends where the wrapper does: under the ceiling, never above the limit. */
export function withinPolicy(policy: CompactionPolicy, given: PrepareOptions): PrepareOptions {
  const { tokenLimit, ceiling } = policy;
  const ratio = given.tokenRatio ?? 1;
  const scaled = (tokens: number | undefined) =>
    tokens === undefined ? undefined : Math.max(1, Math.floor(tokens / ratio));
  return tokenLimit === undefined || given.maxTokensAfter !== undefined || given.preferTokensAfter !== undefined
    ? given
    : { ...given, maxTokensAfter: scaled(tokenLimit), preferTokensAfter: scaled(ceiling) };
}

/** Tokens a summary message adds besides its text: the header line and the message framing. */
export function summaryOverhead(counter: TokenCounter, announce: boolean, prefix?: string): number {
  return counter.countText(`${summaryHeader(announce, prefix)}\n`) + MESSAGE_FRAMING_TOKENS;
}

/**
 * A plan that ends under `preferTokensAfter`, else one that ends under `maxTokensAfter` (saying it ends above the
 * aim); or why none does, and then nothing is summarized. The running summary's budget is never shrunk to make a plan
 * fit: that drops facts for good. When the plan would not: with a `keep` asked for (`keepAsked`, in words), the plan
 * that keeps as much as fits under the aim (`keptLess` says so; a `keep` that keeps the whole thread is the same
 * case); otherwise the hardest cut from `replan` (everything before the latest turn).
 */
export function planWithin(
  plan: CompactionPlan,
  options: PrepareOptions,
  overhead: number,
  replan: (overrides: PrepareOptions) => CompactionPlan,
  keepAsked?: string,
): CompactionPlan | string {
  const max = options.maxTokensAfter ?? Infinity;
  const prefer = Math.min(options.preferTokensAfter ?? max, max);
  const estimate = (candidate: CompactionPlan) => candidate.tokens.afterEstimate + overhead;
  if (plan.executable && estimate(plan) <= prefer) return plan;
  const harder = replan({ ...options, keepTokens: 0, keepMessages: undefined, targetTokens: undefined });
  if (!plan.executable && !(keepAsked && harder.executable)) return plan.reason;
  if (keepAsked && harder.executable) {
    // What the tail may hold: the aim less everything but the tail in the hardest cut, whose summary budget is the
    // largest any cut gets (it summarizes the most).
    const tail = prefer - overhead - (harder.tokens.afterEstimate - harder.tokens.kept);
    const most = replan({
      ...options,
      keepTokens: Math.max(0, tail),
      keepMessages: undefined,
      targetTokens: undefined,
    });
    const kept = most.executable && estimate(most) <= prefer ? most : harder;
    if (estimate(kept) <= prefer || (!plan.executable && estimate(kept) <= max)) {
      return {
        ...kept,
        keptLess: keepAsked,
        keptLessWhy: plan.executable ? "ceiling" : "whole",
        reason: `${kept.reason}; kept less than ${keepAsked} to end under ${Math.max(prefer, estimate(kept))} tokens`,
      };
    }
    if (!plan.executable) return wontFit(kept, max, estimate(kept));
  }
  if (harder.executable && estimate(harder) <= prefer)
    return { ...harder, reason: `${harder.reason}; cut harder to end under ${prefer} tokens` };
  const best = harder.executable && estimate(harder) < estimate(plan) ? harder : plan;
  if (estimate(plan) <= max || estimate(best) <= max) {
    const chosen = estimate(plan) <= max ? plan : best;
    return {
      ...chosen,
      reason: `${chosen.reason}; ends at about ${estimate(chosen)} tokens, above the ${prefer} aimed at (the latest turn and the summary alone take that much)`,
    };
  }
  return wontFit(best, max, estimate(best));
}

function wontFit(best: CompactionPlan, max: number, estimate: number): string {
  return (
    `compacting would leave about ${estimate} tokens (${best.tokens.system} system, ${best.tokens.kept} kept verbatim or pinned, ` +
    `a summary of at least ${best.tokens.summaryBudget}), not under the limit of ${max}`
  );
}

/** The planner's options for a policy (plan.ts), as every entry point plans. */
export function planOptionsOf(
  policy: CompactionPolicy,
): Pick<PlanOptions, "compactionRatio" | "keepTokens" | "keepMessages" | "targetTokens" | "summaryTokens"> {
  const { cut } = policy;
  return {
    compactionRatio: cut.by === "ratio" ? cut.ratio : DEFAULT_COMPACTION_RATIO,
    ...(cut.by === "keep" ? { keepTokens: cut.tokens } : {}),
    ...(cut.by === "messages" ? { keepMessages: cut.messages } : {}),
    ...(cut.by === "target" ? { targetTokens: cut.tokens } : {}),
    ...(policy.summaryTokens !== undefined ? { summaryTokens: policy.summaryTokens } : {}),
  };
}
