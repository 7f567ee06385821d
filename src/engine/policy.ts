/**
 * The compaction policy: when a thread is compacted, what it is brought down to, how large its running summary may
 * be, and when a turn must wait. Resolved and validated once, from options (or the environment: `policyFromEnv`),
 * into one typed object that every entry point — the wrapper, `HistoryManager`, the summarize strategy, the
 * script — passes down unchanged, so the same thread with the same options gets the same plan wherever it runs.
 */
import { warnDeprecated } from "../deprecated.js";
import { argument, parseOptions } from "../options/check.js";
import { POLICY_FIELDS } from "../options/fields.js";
import { absent } from "../options/rules.js";
import { DEFAULT_MODEL, resolveModel, resolveTokenLimit } from "../tokens/models.js";
import { modelNameOf, type ModelOption } from "../tokens/model-option.js";
import { DEFAULT_KEEP_MESSAGES, spelledSettings, type ContextSize, type TriggerCondition } from "./trigger-keep.js";
import { DEFAULT_COMPACTION_RATIO } from "./plan.js";
import type { SummaryLog } from "./summary-log.js";

/**
 * Without `compactionRatio`, a compaction brings the thread down to this share of `tokenLimit`: the next one comes
 * after the thread grew by the other 20% again, so compaction neither runs every turn nor leaves the budget unused.
 */
export const DEFAULT_COMPACTION_TARGET = 0.8;
/**
 * ...of which the running summary may take this share of `tokenLimit` (never more than its summarizer can write:
 * `Summarizer.maxTokens`), the newest messages the rest (20%), verbatim. A summary holds a thread's facts more
 * densely than the messages themselves (no greetings, no filler, no bulk), so the larger it is, the more of what a
 * later question needs survives; the verbatim tail still holds the live exchange (the latest user turn is never
 * summarized, however small the tail). Chosen on both benchmarks side by side: real conversations
 * (npm run bench:retention) and generated agent threads (npm run bench:peers) both kept more with 0.6 than 0.5,
 * and 0.5 more than the previous 0.25 + half of the messages.
 */
export const DEFAULT_SUMMARY_SHARE = 0.6;
/**
 * The share for a summary log (`summaryLog: "append"`): its newest segment summarizes the span just cut, so the
 * verbatim tail keeps little more than the latest turn, and every append, which sends the tail again after the new
 * segment, breaks that much less of the prompt cache. Measured on real conversations (npm run bench:retention)
 * against 0.6: more held at either budget, about half the rewritten tokens (docs/benchmarks.md).
 */
export const LOG_SUMMARY_SHARE = 0.75;
/** With `compactionRatio`, the summary's default share of `tokenLimit`. */
export const RATIO_SUMMARY_SHARE = 0.25;
/** The smallest default summary budget derived from a limit. */
export const MIN_DEFAULT_SUMMARY_TOKENS = 256;
/** Before a turn, the stored thread plus its input may reach this share of the window before compaction must run first. */
export const DEFAULT_HARD_LIMIT = 0.9;
/** Share summarized when recovering from a context-length error. */
export const DEFAULT_RECOVERY_RATIO = 0.8;
/**
 * Turns (wrapper, worker) or model calls (in-graph) that may start over `tokenLimit` while the thread's summary is
 * computed in the background; the next one waits for it (engine/scheduler.ts). Measured with `npm run
 * bench:timeliness`: see docs/deploying.md.
 */
export const DEFAULT_LATENESS = 2;
/**
 * A compaction aims to bring the thread under `tokenLimit` by at least this share of it (or to the target, whichever
 * is higher), cutting harder when its plan would not (all but the latest turn, never a smaller running summary):
 * the next compaction then comes only after the thread grew by that much. One that would not even end under
 * `tokenLimit` is not written.
 */
export const COMPACTION_MARGIN = 0.1;

/** The knobs of a policy; every one optional except where a runtime needs `tokenLimit`. */
export interface CompactionPolicyOptions {
  /**
   * Compact a thread holding more than this many tokens (a share of the window is `trigger: { fraction }`; a number
   * <= 1 as a fraction is deprecated). Without it (`HistoryManager` only) a compaction runs whenever asked, cut by
   * `compactionRatio`.
   */
  tokenLimit?: number;
  /**
   * The seed's knob: summarize this share (0 < r < 1) of the oldest non-system messages instead of compacting to
   * `compactionTarget`. @default none with a tokenLimit (compact to compactionTarget); 0.5 without one
   */
  compactionRatio?: number;
  /** A compaction brings the thread down to about this share (0 < x < 1) of `tokenLimit`. @default 0.8 */
  compactionTarget?: number;
  /** Keep the newest messages within this many tokens verbatim (instead of a target or a ratio). */
  keepTokens?: number;
  /** Compact down to about this many tokens (instead of `compactionTarget`; `keepTokens` wins when both are set). */
  targetTokens?: number;
  /**
   * Budget of each running summary, in tokens. @default 60% of tokenLimit (25% with compactionRatio; with a
   * compactionTarget under 0.8, 0.75 of the target: 30% at 0.4), at least 256,
   * at most what the summarizer can write (`Summarizer.maxTokens`); without a tokenLimit, 20% of what is summarized
   * (256 to 2,000). Never more than 75% of what the summary replaces.
   */
  summaryTokens?: number;
  /**
   * Before a turn, if the stored thread plus the new input exceed this limit — a number of tokens, or `{ fraction }`
   * of the window — compact first, synchronously. (A number <= 1 as a fraction is deprecated.) @default
   * `{ fraction: 0.9 }` (115,200 tokens for an unknown model's 128,000)
   */
  hardLimit?: number | { fraction: number };
  /** Share summarized when recovering from a context-length error. @default 0.8 */
  recoveryRatio?: number;
  /**
   * The bound on lateness: how many turns (the wrapper, the worker) or model calls (in-graph) may start with the
   * thread over `tokenLimit` while its summary is computed in the background. The next one waits for that summary
   * (or computes one), whether or not the application ever yields to the event loop. 0: every turn or call over the
   * limit waits. @default 2
   */
  lateness?: number;
  /**
   * The model the agents talk to, by name or as the chat model (its name is read): picks the tokenizer and the
   * window of fractional limits. @default "gpt-4o"
   */
  model?: ModelOption;
  /** The model's context window in tokens, for fractional limits with a model this library does not know. */
  contextWindow?: number;
  /**
   * When to compact, in the field's vocabulary: `{ tokens: n }` or `{ fraction: f }` of the window — `tokenLimit`'s
   * other name —, or conditions as langchain's summarization takes them: `{ tokens, fraction, messages }` (each field
   * given must hold) or a list of those (any must hold) (engine/trigger-keep.ts).
   */
  trigger?: ContextSize | readonly ContextSize[];
  /**
   * What stays verbatim after a compaction, in the field's vocabulary: `{ tokens: n }`, `{ fraction: f }` of the
   * window, or `{ messages: n }` (the newest n messages) — instead of `compactionTarget` (engine/trigger-keep.ts).
   */
  keep?: ContextSize;
  /** @deprecated langchain's old name of `trigger: { tokens }`. */
  maxTokensBeforeSummary?: number;
  /** @deprecated langchain's old name of `keep: { messages }`. */
  messagesToKeep?: number;
}

/** A resolved policy: every figure in tokens, every default applied. Build one with `resolvePolicy`. */
export interface CompactionPolicy {
  readonly kind: "compaction-policy";
  /**
   * Compact a thread over this many tokens; undefined: whenever asked. With `triggers`, the smallest figure of tokens
   * they name, or the default hard limit when one names none: what the summary's budget and the ceiling are sized from.
   */
  readonly tokenLimit: number | undefined;
  /** A trigger of conditions (engine/trigger-keep.ts): compact when any holds, instead of over `tokenLimit`. */
  readonly triggers?: readonly TriggerCondition[];
  /** Compact before a turn when the stored thread plus its input exceed this; undefined without a tokenLimit. */
  readonly hardLimit: number | undefined;
  /** How the cut is chosen. */
  readonly cut:
    | { readonly by: "target"; readonly tokens: number }
    | { readonly by: "keep"; readonly tokens: number }
    | { readonly by: "messages"; readonly messages: number }
    | { readonly by: "ratio"; readonly ratio: number };
  /** The running summary's budget; undefined: 20% of what each compaction summarizes. */
  readonly summaryTokens: number | undefined;
  /** A compaction aims to end at most here (then cuts harder), and is not written above `tokenLimit`. */
  readonly ceiling: number | undefined;
  /** Where a compaction aims to end: the strategies' budget. Undefined without a tokenLimit. */
  readonly targetAfter: number | undefined;
  readonly recoveryRatio: number;
  /** Turns or calls that may start over `tokenLimit` before one waits for the summary (engine/scheduler.ts). */
  readonly lateness: number;
  readonly model: string;
  readonly contextWindow: number;
}

/** Which of the policy's options came from where, for messages that name them ("--ratio", "COMPACTION_RATIO"). */
export type OptionNames = Partial<Record<keyof CompactionPolicyOptions, string>>;

/**
 * Resolve and validate a policy. `summarizerMaxTokens`: the longest summary the summarizer can write (the default
 * budget never asks for more).
 * @throws CompactionError INVALID_ARGUMENT naming the option (as `names` spells it) and its value.
 */
export function resolvePolicy(
  options: CompactionPolicyOptions,
  {
    summarizerMaxTokens = Number.POSITIVE_INFINITY,
    names = {},
    summaryLog = "rewrite",
  }: { summarizerMaxTokens?: number; names?: OptionNames; summaryLog?: SummaryLog } = {},
): CompactionPolicy {
  const name = (key: keyof CompactionPolicyOptions) => names[key] ?? key;
  parseOptions("resolvePolicy", POLICY_FIELDS, options, (key) => name(key as keyof CompactionPolicyOptions));
  const model = modelNameOf(options.model) ?? DEFAULT_MODEL;
  const info = resolveModel(model);
  const contextWindow = options.contextWindow ?? info.contextWindow;
  const spelled = spelledSettings(options, contextWindow, name);
  // A trigger whose conditions do not all count tokens is sized from the default hard limit.
  const limit = spelled.tokenLimit ?? options.tokenLimit ?? (spelled.triggers ? DEFAULT_HARD_LIMIT : undefined);
  const tokenLimit =
    limit === undefined
      ? undefined
      : resolveTokenLimit(limit, model, {
          parameter: spelled.tokenLimitName ?? name("tokenLimit"),
          contextWindow: options.contextWindow,
        });
  const hard = options.hardLimit;
  const hardLimit =
    tokenLimit === undefined
      ? undefined
      : Math.max(
          tokenLimit,
          hard === undefined
            ? resolveTokenLimit(DEFAULT_HARD_LIMIT, model, { parameter: name("hardLimit"), contextWindow })
            : resolveTokenLimit(typeof hard === "number" ? hard : hard.fraction, model, {
                parameter: typeof hard === "number" ? name("hardLimit") : `${name("hardLimit")}.fraction`,
                contextWindow: options.contextWindow,
              }),
        );
  warnFractions(options, names);
  if (tokenLimit === undefined)
    argument(name("hardLimit"), options.hardLimit, absent(`given with ${name("tokenLimit")} (or ${name("trigger")})`));
  const ratio = options.compactionRatio;
  const target = options.compactionTarget ?? DEFAULT_COMPACTION_TARGET;
  const keepTokens = spelled.keepTokens ?? options.keepTokens;
  const targetTokens = options.targetTokens;
  const recoveryRatio = options.recoveryRatio ?? DEFAULT_RECOVERY_RATIO;
  const lateness = options.lateness ?? DEFAULT_LATENESS;

  const cutGiven = [spelled.keepMessages, keepTokens, ratio, targetTokens, options.compactionTarget].some(
    (value) => value !== undefined,
  );
  const keepMessages =
    spelled.keepMessages ??
    (!cutGiven && spelled.triggers?.some((condition) => condition.messages !== undefined)
      ? DEFAULT_KEEP_MESSAGES
      : undefined);
  const cut: CompactionPolicy["cut"] =
    keepMessages !== undefined
      ? { by: "messages", messages: keepMessages }
      : keepTokens !== undefined
        ? { by: "keep", tokens: keepTokens }
        : ratio !== undefined
          ? { by: "ratio", ratio }
          : targetTokens !== undefined
            ? { by: "target", tokens: targetTokens }
            : tokenLimit !== undefined
              ? { by: "target", tokens: Math.floor(tokenLimit * target) }
              : { by: "ratio", ratio: DEFAULT_COMPACTION_RATIO };
  let summaryTokens: number | undefined = options.summaryTokens;
  if (summaryTokens === undefined && tokenLimit !== undefined) {
    // A lower low-water mark takes the summary's share down with it, in the defaults' proportion (0.6 of 0.8): the
    // summary alone would otherwise fill the target, and every target under 0.6 would end at the same place.
    const share =
      ratio !== undefined
        ? RATIO_SUMMARY_SHARE
        : (summaryLog === "append" ? LOG_SUMMARY_SHARE : DEFAULT_SUMMARY_SHARE) *
          Math.min(1, target / DEFAULT_COMPACTION_TARGET);
    summaryTokens = Math.max(MIN_DEFAULT_SUMMARY_TOKENS, Math.min(summarizerMaxTokens, Math.round(tokenLimit * share)));
  }
  const targetAfter =
    tokenLimit === undefined
      ? undefined
      : cut.by === "target"
        ? cut.tokens
        : Math.floor(tokenLimit * (1 - (ratio ?? DEFAULT_COMPACTION_RATIO)));
  const ceiling =
    tokenLimit === undefined
      ? undefined
      : Math.max(Math.floor(tokenLimit * (1 - COMPACTION_MARGIN)), cut.by === "target" ? cut.tokens : 0);
  return Object.freeze({
    kind: "compaction-policy",
    tokenLimit,
    ...(spelled.triggers ? { triggers: Object.freeze([...spelled.triggers]) } : {}),
    hardLimit,
    cut: Object.freeze(cut),
    summaryTokens,
    ceiling,
    targetAfter,
    recoveryRatio,
    lateness,
    model,
    contextWindow,
  });
}

/**
 * A number that changes meaning with its size is deprecated: `tokenLimit` and `hardLimit` given in code as a number
 * <= 1 (a fraction of the window) are said once each, naming the form that says it. TOKEN_LIMIT and `--limit` are text
 * that names its unit by its form, and stay as they are.
 */
function warnFractions(options: CompactionPolicyOptions, names: OptionNames): void {
  const { tokenLimit, hardLimit } = options;
  if (typeof tokenLimit === "number" && tokenLimit <= 1 && names.tokenLimit === undefined)
    warnDeprecated(
      "tokenLimit-fraction",
      `tokenLimit ${tokenLimit} as a fraction of the window is deprecated (a number should not change meaning with its size): use trigger: { fraction: ${tokenLimit} }.`,
    );
  if (typeof hardLimit === "number" && hardLimit <= 1)
    warnDeprecated(
      "hardLimit-fraction",
      `hardLimit ${hardLimit} as a fraction of the window is deprecated (a number should not change meaning with its size): use hardLimit: { fraction: ${hardLimit} }.`,
    );
}
