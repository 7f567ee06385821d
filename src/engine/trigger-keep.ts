/**
 * The cut said in the field's vocabulary (langchain's `summarizationMiddleware`): `trigger` — when a thread is
 * compacted — and `keep` — what stays verbatim after it — each `{ tokens }`, `{ fraction }` (of the model's context
 * window) or `{ messages }`. They are other spellings of the policy's own settings and resolve into them here:
 * - `trigger: { tokens: n }` is `tokenLimit: n`; `{ fraction: f }` is `tokenLimit: f` (f of the window). Any other
 *   trigger is a list of conditions, as langchain reads it: a condition holds when each of its fields does (at least
 *   `tokens`, at least `fraction` of the window, at least `messages` messages), and the list when any condition does.
 *   Its `tokenLimit` is the smallest token figure of the list (the summary's budget and the ceiling are sized from it),
 *   or the default hard limit when a condition counts no tokens (it may hold at any size); a list with a condition on
 *   messages and no cut of its own keeps the newest 20 messages, as langchain does.
 * - `keep: { tokens: n }` is `keepTokens: n`; `{ fraction: f }` keeps f of the window (`keepTokens`); `{ messages:
 *   n }` keeps the newest n messages verbatim (or more: the cut falls between whole units, a tool call with its
 *   results). The running summary comes on top of what is kept.
 * Each is refused beside the settings it spells (`trigger` with `tokenLimit`; `keep` with `compactionRatio`,
 * `compactionTarget`, `keepTokens` or `targetTokens`): one setting, one name in a given call.
 */
import { argument } from "../options/check.js";
import { absent } from "../options/rules.js";
import { warnDeprecated } from "../deprecated.js";

/** When to compact (a condition: one field or more, each must hold), or what to keep (exactly one field). */
export interface ContextSize {
  tokens?: number;
  /** A share of the model's context window: 0 < f <= 1 for a trigger, 0 < f < 1 for what is kept. */
  fraction?: number;
  messages?: number;
}

/** One condition of a trigger list, its fraction resolved: each field set must hold. */
export interface TriggerCondition {
  readonly tokens?: number;
  readonly messages?: number;
}

/** What a list of conditions keeps without a cut of its own, as langchain's summarization keeps. */
export const DEFAULT_KEEP_MESSAGES = 20;

export interface VocabularyOptions {
  trigger?: ContextSize | readonly ContextSize[];
  keep?: ContextSize;
  /** langchain's deprecated spelling of `trigger: { tokens }`, taken with a deprecation warning. */
  maxTokensBeforeSummary?: number;
  /** langchain's deprecated spelling of `keep: { messages }`, taken with a deprecation warning. */
  messagesToKeep?: number;
  tokenLimit?: number;
  compactionRatio?: number;
  compactionTarget?: number;
  keepTokens?: number;
  targetTokens?: number;
}

/** What `trigger` and `keep` say, as the policy's settings. */
export interface Spelled {
  tokenLimit?: number;
  /** How errors about the limit name it: `trigger.tokens` or `trigger.fraction`. */
  tokenLimitName?: string;
  keepTokens?: number;
  /** How errors about the kept tokens name them: `keep.tokens`. */
  keepTokensName?: string;
  keepMessages?: number;
  /** A trigger that is not one figure of tokens: its conditions (any holds: compact). */
  triggers?: readonly TriggerCondition[];
}

/**
 * `trigger` and `keep` as the policy's settings; `contextWindow`: the model's window, for `keep.fraction`. Each
 * value's own rule is checked with the policy's options (options/fields.ts); here, that one setting has one name.
 * @throws CompactionError INVALID_ARGUMENT naming the option (as `name` spells it) and its value.
 */
export function spelledSettings(
  given: VocabularyOptions,
  contextWindow: number,
  name: (key: keyof VocabularyOptions) => string,
): Spelled {
  const spelled: Spelled = {};
  const options = withoutDeprecated(given);
  const { trigger, keep } = options;
  if (trigger !== undefined) {
    if (options.tokenLimit !== undefined)
      argument(name("trigger"), trigger, leftOut(`when ${name("tokenLimit")} is given (trigger is its other name)`));
    const list = Array.isArray(trigger) ? trigger : [trigger as ContextSize];
    const single = list.length === 1 && !Array.isArray(trigger) ? onlyField(list[0]!) : undefined;
    if (single === "tokens" || single === "fraction") {
      // tokenLimit's own rule checks the rest (at least 100 tokens once resolved), naming the field it came from.
      spelled.tokenLimit = list[0]![single];
      spelled.tokenLimitName = `${name("trigger")}.${single}`;
    } else {
      spelled.triggers = list.map((condition) => conditionOf(condition, contextWindow));
      const figures = spelled.triggers.map((condition) => condition.tokens);
      const least = figures.every((tokens) => tokens !== undefined) ? Math.min(...(figures as number[])) : undefined;
      if (least !== undefined) {
        spelled.tokenLimit = least;
        spelled.tokenLimitName = name("trigger");
      }
    }
  }
  if (keep !== undefined) {
    const other = (["compactionRatio", "compactionTarget", "keepTokens", "targetTokens"] as const).find(
      (key) => options[key] !== undefined,
    );
    if (other !== undefined)
      argument(name("keep"), keep, leftOut(`when ${name(other)} is given (both say where to cut)`));
    const field = onlyField(keep)!;
    const value = keep[field]!;
    if (field === "tokens") {
      spelled.keepTokens = value;
      spelled.keepTokensName = `${name("keep")}.tokens`;
    } else if (field === "fraction") spelled.keepTokens = Math.floor(value * contextWindow);
    else spelled.keepMessages = value;
  }
  return spelled;
}

const leftOut = (why: string) => absent(`left out ${why}`);

/** langchain's deprecated names, as the names they stand for (refused beside them), with a warning each. */
function withoutDeprecated(options: VocabularyOptions): VocabularyOptions {
  const { maxTokensBeforeSummary, messagesToKeep, ...rest } = options;
  const spelled: VocabularyOptions = { ...rest };
  if (maxTokensBeforeSummary !== undefined) {
    if (rest.trigger !== undefined || rest.tokenLimit !== undefined)
      argument(
        "maxTokensBeforeSummary",
        maxTokensBeforeSummary,
        leftOut("when trigger or tokenLimit is given (it is trigger's deprecated name)"),
      );
    warnDeprecated(
      "maxTokensBeforeSummary",
      "maxTokensBeforeSummary is deprecated (langchain's old name): use trigger: { tokens } instead.",
    );
    spelled.trigger = { tokens: maxTokensBeforeSummary };
  }
  if (messagesToKeep !== undefined) {
    if (rest.keep !== undefined)
      argument("messagesToKeep", messagesToKeep, leftOut("when keep is given (it is keep's deprecated name)"));
    warnDeprecated(
      "messagesToKeep",
      "messagesToKeep is deprecated (langchain's old name): use keep: { messages } instead.",
    );
    spelled.keep = { messages: messagesToKeep };
  }
  return spelled;
}

/** One condition of a trigger list, its fraction as tokens of `contextWindow`. */
function conditionOf({ tokens, fraction, messages }: ContextSize, contextWindow: number): TriggerCondition {
  const figures = [tokens, fraction === undefined ? undefined : Math.floor(fraction * contextWindow)].filter(
    (value): value is number => value !== undefined,
  );
  return Object.freeze({
    ...(figures.length > 0 ? { tokens: Math.max(...figures) } : {}),
    ...(messages === undefined ? {} : { messages }),
  });
}

/** The one field `size` sets, or undefined when it sets several. */
function onlyField(size: ContextSize): keyof ContextSize | undefined {
  const set = (["tokens", "fraction", "messages"] as const).filter((key) => size[key] !== undefined);
  return set.length === 1 ? set[0] : undefined;
}
