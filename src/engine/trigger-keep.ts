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
import { invalidArgument } from "../errors.js";
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

const TRIGGER_RULE =
  "{ tokens, fraction, messages } (at least one: all must hold) or a non-empty list of them (any must hold)";
const KEEP_RULE = "{ tokens: n }, { fraction: f } (0 < f < 1 of the window) or { messages: n }, exactly one";

/**
 * `trigger` and `keep` as the policy's settings; `contextWindow`: the model's window, for `keep.fraction`.
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
      throw invalidArgument(
        name("trigger"),
        trigger,
        `left out when ${name("tokenLimit")} is given (trigger is its other name)`,
      );
    const field = Array.isArray(trigger) ? undefined : onlyField(trigger);
    if (field === "tokens" || field === "fraction") {
      const value = (trigger as ContextSize)[field];
      checkTokens(`${name("trigger")}.${field}`, field, value);
      // tokenLimit's own rule checks the rest (at least 100 tokens once resolved), naming the field it came from.
      spelled.tokenLimit = value;
      spelled.tokenLimitName = `${name("trigger")}.${field}`;
    } else {
      const list = Array.isArray(trigger) ? trigger : [trigger];
      if (list.length === 0) throw invalidArgument(name("trigger"), trigger, TRIGGER_RULE);
      spelled.triggers = list.map((condition, index) =>
        conditionOf(
          condition,
          Array.isArray(trigger) ? `${name("trigger")}[${index}]` : name("trigger"),
          contextWindow,
        ),
      );
      const figures = spelled.triggers.map((condition) => condition.tokens);
      const least = figures.every((tokens) => tokens !== undefined) ? Math.min(...(figures as number[])) : undefined;
      if (least !== undefined) {
        spelled.tokenLimit = least;
        spelled.tokenLimitName = name("trigger");
      }
    }
  }
  if (keep !== undefined) {
    const field = onlyField(keep);
    if (field === undefined) throw invalidArgument(name("keep"), keep, KEEP_RULE);
    const other = (["compactionRatio", "compactionTarget", "keepTokens", "targetTokens"] as const).find(
      (key) => options[key] !== undefined,
    );
    if (other !== undefined)
      throw invalidArgument(name("keep"), keep, `left out when ${name(other)} is given (both say where to cut)`);
    const value = keep[field];
    if (field === "tokens") {
      // keepTokens' own rule checks it, naming the field it came from.
      spelled.keepTokens = value;
      spelled.keepTokensName = `${name("keep")}.tokens`;
    } else if (field === "fraction") {
      if (typeof value !== "number" || !(value > 0 && value < 1))
        throw invalidArgument(`${name("keep")}.fraction`, value, "a share of the window, 0 < f < 1");
      spelled.keepTokens = Math.floor(value * contextWindow);
    } else {
      if (typeof value !== "number" || !Number.isInteger(value) || value < 0)
        throw invalidArgument(
          `${name("keep")}.messages`,
          value,
          "an integer >= 0 (the latest user turn is kept whatever it says)",
        );
      spelled.keepMessages = value;
    }
  }
  return spelled;
}

/** langchain's deprecated names, as the names they stand for (refused beside them), with a warning each. */
function withoutDeprecated(options: VocabularyOptions): VocabularyOptions {
  const { maxTokensBeforeSummary, messagesToKeep, ...rest } = options;
  const spelled: VocabularyOptions = { ...rest };
  if (maxTokensBeforeSummary !== undefined) {
    if (rest.trigger !== undefined || rest.tokenLimit !== undefined)
      throw invalidArgument(
        "maxTokensBeforeSummary",
        maxTokensBeforeSummary,
        "left out when trigger or tokenLimit is given (it is trigger's deprecated name)",
      );
    checkTokens("maxTokensBeforeSummary", "tokens", maxTokensBeforeSummary);
    warnDeprecated(
      "maxTokensBeforeSummary",
      "maxTokensBeforeSummary is deprecated (langchain's old name): use trigger: { tokens } instead.",
    );
    spelled.trigger = { tokens: maxTokensBeforeSummary };
  }
  if (messagesToKeep !== undefined) {
    if (rest.keep !== undefined)
      throw invalidArgument(
        "messagesToKeep",
        messagesToKeep,
        "left out when keep is given (it is keep's deprecated name)",
      );
    if (!(typeof messagesToKeep === "number" && Number.isInteger(messagesToKeep) && messagesToKeep >= 0))
      throw invalidArgument("messagesToKeep", messagesToKeep, "an integer >= 0");
    warnDeprecated(
      "messagesToKeep",
      "messagesToKeep is deprecated (langchain's old name): use keep: { messages } instead.",
    );
    spelled.keep = { messages: messagesToKeep };
  }
  return spelled;
}

function checkTokens(parameter: string, field: "tokens" | "fraction", value: unknown): void {
  if (field === "tokens" && !(typeof value === "number" && Number.isFinite(value) && value > 1))
    throw invalidArgument(parameter, value, "a number of tokens > 1 (a share of the window is trigger.fraction)");
  if (field === "fraction" && !(typeof value === "number" && value > 0 && value <= 1))
    throw invalidArgument(parameter, value, "a share of the window, 0 < f <= 1");
}

/** One condition of a trigger list, checked, its fraction as tokens of `contextWindow`. */
function conditionOf(condition: unknown, parameter: string, contextWindow: number): TriggerCondition {
  const fields =
    typeof condition === "object" && condition !== null && !Array.isArray(condition) ? Object.keys(condition) : [];
  const known = ["tokens", "fraction", "messages"];
  const set = fields.filter((key) => (condition as Record<string, unknown>)[key] !== undefined);
  if (set.length === 0 || fields.some((key) => !known.includes(key)))
    throw invalidArgument(parameter, condition, TRIGGER_RULE);
  const { tokens, fraction, messages } = condition as ContextSize;
  if (tokens !== undefined) checkTokens(`${parameter}.tokens`, "tokens", tokens);
  if (fraction !== undefined) checkTokens(`${parameter}.fraction`, "fraction", fraction);
  if (messages !== undefined && !(typeof messages === "number" && Number.isInteger(messages) && messages >= 1))
    throw invalidArgument(`${parameter}.messages`, messages, "an integer >= 1");
  const figures = [tokens, fraction === undefined ? undefined : Math.floor(fraction * contextWindow)].filter(
    (value): value is number => value !== undefined,
  );
  return Object.freeze({
    ...(figures.length > 0 ? { tokens: Math.max(...figures) } : {}),
    ...(messages === undefined ? {} : { messages }),
  });
}

/** The one field `size` sets, or undefined when it is no object or sets none or several. */
function onlyField(size: unknown): keyof ContextSize | undefined {
  if (typeof size !== "object" || size === null || Array.isArray(size)) return undefined;
  const set = (["tokens", "fraction", "messages"] as const).filter((key) => (size as ContextSize)[key] !== undefined);
  const unknown = Object.keys(size).some((key) => !["tokens", "fraction", "messages"].includes(key));
  return set.length === 1 && !unknown ? set[0] : undefined;
}
