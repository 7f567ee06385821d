/**
 * The cut said in the field's vocabulary (langchain's `summarizationMiddleware`): `trigger` — when a thread is
 * compacted — and `keep` — what stays verbatim after it — each `{ tokens }`, `{ fraction }` (of the model's context
 * window) or `{ messages }`. They are other spellings of the policy's own settings and resolve into them here:
 * - `trigger: { tokens: n }` is `tokenLimit: n`; `{ fraction: f }` is `tokenLimit: f` (f of the window). A trigger on
 *   messages is refused: this library compacts on tokens, counted as the provider counts them.
 * - `keep: { tokens: n }` is `keepTokens: n`; `{ fraction: f }` keeps f of the window (`keepTokens`); `{ messages:
 *   n }` keeps the newest n messages verbatim (or more: the cut falls between whole units, a tool call with its
 *   results). The running summary comes on top of what is kept.
 * Each is refused beside the settings it spells (`trigger` with `tokenLimit`; `keep` with `compactionRatio`,
 * `compactionTarget`, `keepTokens` or `targetTokens`): one setting, one name in a given call.
 */
import { invalidArgument } from "../errors.js";

/** When to compact, or what to keep: exactly one of its fields. */
export interface ContextSize {
  tokens?: number;
  /** A share of the model's context window: 0 < f <= 1 for a trigger, 0 < f < 1 for what is kept. */
  fraction?: number;
  messages?: number;
}

export interface VocabularyOptions {
  trigger?: ContextSize;
  keep?: ContextSize;
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
}

const TRIGGER_RULE = "{ tokens: n } or { fraction: f } (when to compact: this library compacts on tokens, not messages)";
const KEEP_RULE = "{ tokens: n }, { fraction: f } (0 < f < 1 of the window) or { messages: n }, exactly one";

/**
 * `trigger` and `keep` as the policy's settings; `contextWindow`: the model's window, for `keep.fraction`.
 * @throws CompactionError INVALID_ARGUMENT naming the option (as `name` spells it) and its value.
 */
export function spelledSettings(options: VocabularyOptions, contextWindow: number, name: (key: keyof VocabularyOptions) => string): Spelled {
  const spelled: Spelled = {};
  const { trigger, keep } = options;
  if (trigger !== undefined) {
    const field = onlyField(trigger);
    if (field === undefined || field === "messages") throw invalidArgument(name("trigger"), trigger, TRIGGER_RULE);
    if (options.tokenLimit !== undefined) throw invalidArgument(name("trigger"), trigger, `left out when ${name("tokenLimit")} is given (trigger is its other name)`);
    const value = trigger[field];
    if (field === "tokens" && !(typeof value === "number" && Number.isFinite(value) && value > 1)) throw invalidArgument(`${name("trigger")}.tokens`, value, "a number of tokens > 1 (a share of the window is trigger.fraction)");
    if (field === "fraction" && !(typeof value === "number" && value > 0 && value <= 1)) throw invalidArgument(`${name("trigger")}.fraction`, value, "a share of the window, 0 < f <= 1");
    // tokenLimit's own rule checks the rest (at least 100 tokens once resolved), naming the field it came from.
    spelled.tokenLimit = value;
    spelled.tokenLimitName = `${name("trigger")}.${field}`;
  }
  if (keep !== undefined) {
    const field = onlyField(keep);
    if (field === undefined) throw invalidArgument(name("keep"), keep, KEEP_RULE);
    const other = (["compactionRatio", "compactionTarget", "keepTokens", "targetTokens"] as const).find((key) => options[key] !== undefined);
    if (other !== undefined) throw invalidArgument(name("keep"), keep, `left out when ${name(other)} is given (both say where to cut)`);
    const value = keep[field];
    if (field === "tokens") {
      // keepTokens' own rule checks it, naming the field it came from.
      spelled.keepTokens = value;
      spelled.keepTokensName = `${name("keep")}.tokens`;
    } else if (field === "fraction") {
      if (typeof value !== "number" || !(value > 0 && value < 1)) throw invalidArgument(`${name("keep")}.fraction`, value, "a share of the window, 0 < f < 1");
      spelled.keepTokens = Math.floor(value * contextWindow);
    } else {
      if (typeof value !== "number" || !Number.isInteger(value) || value < 1) throw invalidArgument(`${name("keep")}.messages`, value, "an integer >= 1");
      spelled.keepMessages = value;
    }
  }
  return spelled;
}

/** The one field `size` sets, or undefined when it is no object or sets none or several. */
function onlyField(size: unknown): keyof ContextSize | undefined {
  if (typeof size !== "object" || size === null || Array.isArray(size)) return undefined;
  const set = (["tokens", "fraction", "messages"] as const).filter((key) => (size as ContextSize)[key] !== undefined);
  const unknown = Object.keys(size).some((key) => !["tokens", "fraction", "messages"].includes(key));
  return set.length === 1 && !unknown ? set[0] : undefined;
}
