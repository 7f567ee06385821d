/**
 * The compaction policy: when a thread is compacted, what it is brought down to, how large its summary may be, and
 * when a turn must wait — every figure in tokens, resolved once from the options (options.ts) by settings.ts, and
 * passed down unchanged, so the same thread with the same options gets the same plan wherever it runs. Each figure is
 * derived from the options table (docs/options.md) by the rule written beside it here, and nowhere else.
 */
import { argument } from "../options/check.js";
import { absent, never } from "../options/rules.js";
import { DEFAULT_MODEL, MIN_LIMIT_TOKENS, resolveModel } from "../tokens/models.js";
import { DEFAULT_COMPACTION_RATIO } from "./plan.js";
import type { ContextSize, SummaryLog, TriggerOption } from "./options.js";

/** Without `keep` or `compactionRatio`, a compaction brings the thread down to this share of the trigger's tokens. */
export const DEFAULT_COMPACTION_TARGET = 0.8;
/**
 * The summary's budget, as a share of the trigger's tokens: the newest messages take the rest of the target,
 * verbatim. A summary holds a thread's facts more densely than the messages themselves, so the larger it is, the more
 * of what a later question needs survives (npm run bench:retention and bench:peers both kept more with 0.6 than 0.5).
 */
export const DEFAULT_SUMMARY_SHARE = 0.6;
/**
 * With `summaryLog: "append"`: its newest segment summarizes the span just cut, so the verbatim tail keeps little
 * more than the latest turn, and every append breaks that much less of the prompt cache (docs/benchmarks.md).
 */
export const LOG_SUMMARY_SHARE = 0.75;
/** With `compactionRatio`, the summary's share of the trigger's tokens. */
export const RATIO_SUMMARY_SHARE = 0.25;
/** The context may reach this share of the model's window before a turn must wait for compaction (the hard limit). */
export const HARD_LIMIT_SHARE = 0.9;
/** Share summarized when recovering from a context-length error. */
export const RECOVERY_RATIO = 0.8;
/**
 * Turns (wrapper) or model calls (in-graph) that may start over the trigger while the summary is computed in the
 * background; the next one waits for it (engine/scheduler.ts). `background: false`: none. Measured with `npm run
 * bench:timeliness`: see docs/deploying.md.
 */
export const LATENESS = 2;
/**
 * A compaction aims to end at most at this share of the trigger's tokens (the ceiling), cutting harder when its plan
 * would not: the next compaction comes only after the thread grew by the rest. One that would not even end under the
 * trigger is not written.
 */
export const CEILING_SHARE = 0.9;
/** What a trigger of messages keeps without a `keep`, at most (langchain's summarization keeps 20). */
export const DEFAULT_KEEP_MESSAGES = 20;
/** What stays after any compaction, in messages: the summary, the latest user turn and its answer. */
const LEAST_AFTER = 3;

/** One condition of a trigger list, its fraction resolved: each field set must hold. */
export interface TriggerCondition {
  readonly tokens?: number;
  readonly messages?: number;
}

/** A resolved policy: every figure in tokens, every default applied. */
export interface CompactionPolicy {
  /**
   * The trigger's tokens: compact a thread over this many; undefined (HistoryManager without a trigger): whenever
   * asked. With `triggers`, the smallest figure of tokens they name, or the hard limit when one names none: what the
   * summary's budget and the ceiling are sized from.
   */
  readonly tokenLimit: number | undefined;
  /** A trigger of conditions: compact when any holds, instead of over `tokenLimit`. */
  readonly triggers?: readonly TriggerCondition[];
  /** A turn waits for compaction when the stored thread plus its input exceed this: 90% of the window. */
  readonly hardLimit: number | undefined;
  /** How the cut is chosen. */
  readonly cut:
    | { readonly by: "target"; readonly tokens: number }
    | { readonly by: "keep"; readonly tokens: number }
    | { readonly by: "messages"; readonly messages: number }
    | { readonly by: "ratio"; readonly ratio: number };
  /** The summary's budget; undefined (no trigger): 20% of what each compaction summarizes. */
  readonly summaryTokens: number | undefined;
  /** A compaction aims to end at most here (then cuts harder): 90% of the trigger's tokens. */
  readonly ceiling: number | undefined;
  /** Where a compaction aims to end: the strategies' budget. Undefined without a trigger. */
  readonly targetAfter: number | undefined;
  readonly model: string;
  readonly contextWindow: number;
}

export interface PolicyInput {
  trigger?: TriggerOption | undefined;
  keep?: ContextSize | undefined;
  compactionRatio?: number | undefined;
  /** The tokenizer's model name. @default "gpt-4o" */
  model?: string;
  /** The window a chat model's profile states, when `model` is one. */
  window?: number | undefined;
  summaryLog?: SummaryLog | undefined;
  /** The longest summary the summarizer can write (the default budget never asks for more). */
  summarizerMaxTokens?: number;
  /** How messages name an option that came from elsewhere (TOKEN_LIMIT, --limit). */
  names?: Partial<Record<"trigger" | "keep" | "compactionRatio", string>>;
}

/**
 * The policy `input` asks for.
 * @throws CompactionError INVALID_ARGUMENT naming the option (as `names` spells it) and its value.
 */
export function resolvePolicy(input: PolicyInput): CompactionPolicy {
  const name = (key: "trigger" | "keep" | "compactionRatio") => input.names?.[key] ?? key;
  const model = input.model ?? DEFAULT_MODEL;
  const contextWindow = input.window ?? resolveModel(model).contextWindow;
  const hard = Math.floor(contextWindow * HARD_LIMIT_SHARE);
  const tokensOf = (size: ContextSize, parameter: string) => tokensOfSize(size, parameter, model, input.window);

  const { trigger, keep, compactionRatio } = input;
  if (keep !== undefined && compactionRatio !== undefined)
    argument(
      name("compactionRatio"),
      compactionRatio,
      absent(
        `left out when ${name("keep")} is given: both say where to cut (keep what stays, or compactionRatio what goes)`,
      ),
    );
  let tokenLimit: number | undefined;
  let triggers: TriggerCondition[] | undefined;
  if (trigger !== undefined) {
    const list: readonly ContextSize[] = Array.isArray(trigger) ? trigger : [trigger];
    const conditions = list.map((size, index) =>
      Object.freeze({
        ...(size.tokens === undefined && size.fraction === undefined
          ? {}
          : { tokens: tokensOf(size, Array.isArray(trigger) ? `${name("trigger")}[${index}]` : name("trigger")) }),
        ...(size.messages === undefined ? {} : { messages: size.messages }),
      }),
    );
    const onlyTokens = !Array.isArray(trigger) && conditions[0]!.messages === undefined;
    if (!onlyTokens) triggers = conditions;
    const figures = conditions.map((condition) => condition.tokens);
    tokenLimit = figures.every((figure) => figure !== undefined) ? Math.min(...(figures as number[])) : hard;
    if (tokenLimit < MIN_LIMIT_TOKENS)
      argument(name("trigger"), trigger, never(`at least ${MIN_LIMIT_TOKENS} tokens (it resolved to ${tokenLimit})`));
  }
  const fewestMessages = leastMessagesOnly(triggers);
  if (fewestMessages !== undefined && fewestMessages <= LEAST_AFTER)
    argument(
      name("trigger"),
      trigger,
      never(
        `a trigger no compaction can get under: a compaction leaves at least ${LEAST_AFTER} messages (the summary, the latest turn and its answer), so { messages: ${fewestMessages} } would hold after every one; give more than ${LEAST_AFTER} messages`,
      ),
    );
  // After a compaction the thread holds the summary and what is kept: under a trigger of n messages, at most n - 2.
  if (keep?.messages !== undefined && fewestMessages !== undefined && keep.messages + 1 >= fewestMessages)
    argument(
      `${name("keep")}.messages`,
      keep.messages,
      never(
        `at most ${fewestMessages - 2}: with the summary, keeping ${keep.messages} messages leaves the thread at its trigger { messages: ${fewestMessages} }, so it would compact again at once`,
      ),
    );

  const keepTokens = keep === undefined || keep.messages !== undefined ? undefined : tokensOf(keep, name("keep"));
  const cut: CompactionPolicy["cut"] =
    keep?.messages !== undefined
      ? { by: "messages", messages: keep.messages }
      : keepTokens !== undefined
        ? { by: "keep", tokens: keepTokens }
        : compactionRatio !== undefined
          ? { by: "ratio", ratio: compactionRatio }
          : fewestMessages !== undefined
            ? { by: "messages", messages: Math.min(DEFAULT_KEEP_MESSAGES, Math.floor(fewestMessages / 2)) }
            : tokenLimit !== undefined
              ? { by: "target", tokens: Math.floor(tokenLimit * DEFAULT_COMPACTION_TARGET) }
              : { by: "ratio", ratio: DEFAULT_COMPACTION_RATIO };
  const share =
    compactionRatio !== undefined
      ? RATIO_SUMMARY_SHARE
      : input.summaryLog === "append"
        ? LOG_SUMMARY_SHARE
        : DEFAULT_SUMMARY_SHARE;
  const summaryTokens =
    tokenLimit === undefined
      ? undefined
      : Math.min(input.summarizerMaxTokens ?? Number.POSITIVE_INFINITY, Math.round(tokenLimit * share));
  return Object.freeze({
    tokenLimit,
    ...(triggers ? { triggers: Object.freeze(triggers) } : {}),
    hardLimit: tokenLimit === undefined ? undefined : Math.max(tokenLimit, hard),
    cut: Object.freeze(cut),
    summaryTokens,
    ceiling: tokenLimit === undefined ? undefined : Math.floor(tokenLimit * CEILING_SHARE),
    targetAfter:
      tokenLimit === undefined
        ? undefined
        : cut.by === "target"
          ? cut.tokens
          : Math.floor(tokenLimit * (1 - (compactionRatio ?? DEFAULT_COMPACTION_RATIO))),
    model,
    contextWindow,
  });
}

/**
 * The tokens `size` names: its `tokens`, or its `fraction` of the model's context window (`window`, a chat model's
 * profile, when given; else the known model's), the larger when it gives both. The one rule by which a share of the
 * window becomes tokens (a trigger, `keep`, the context-trim hook's budget).
 * @throws CompactionError INVALID_ARGUMENT naming `<parameter>.fraction` when the model's window is unknown.
 */
export function tokensOfSize(
  size: ContextSize,
  parameter: string,
  model: string = DEFAULT_MODEL,
  window?: number,
): number | undefined {
  if (size.fraction === undefined) return size.tokens;
  const info = resolveModel(model);
  if (window === undefined && !info.known)
    argument(
      `${parameter}.fraction`,
      size.fraction,
      never(
        `tokens: model ${JSON.stringify(model)} is not one whose context window this library knows (give it in tokens, or model as a chat model whose profile states maxInputTokens)`,
      ),
    );
  return Math.max(size.tokens ?? 0, Math.floor(size.fraction * (window ?? info.contextWindow)));
}

/** The fewest messages of a condition that counts messages only (one that holds after any compaction that leaves as many). */
function leastMessagesOnly(triggers: readonly TriggerCondition[] | undefined): number | undefined {
  const figures = (triggers ?? [])
    .filter((condition) => condition.tokens === undefined && condition.messages !== undefined)
    .map((condition) => condition.messages!);
  return figures.length === 0 ? undefined : Math.min(...figures);
}
