/**
 * The one resolver: a runtime's options (options.ts), parsed against its schema once at construction, become the
 * settings every part of a compaction reads — the policy, the summarizer, the counter, the wording, the recall
 * settings. The wrapper, the in-graph step, HistoryManager, the worker and the script all resolve here, and nothing
 * below re-validates or re-defaults what it resolved. Options not given are read from `env` as the script reads them.
 */
import type { z } from "zod";
import { CompactionError } from "../errors.js";
import type { PinPredicate } from "../messages/pins.js";
import { numberArgument, parseOptions } from "../options/check.js";
import { number, RATIO_RULE } from "../options/rules.js";
import { chooseSummarizer, type SummarizerChoice } from "../summarizers/default.js";
import { ExtractiveSummarizer } from "../summarizers/extractive.js";
import { DEFAULT_SUMMARIZER_MAX_TOKENS, type Summarizer } from "../summarizers/types.js";
import { DEFAULT_RECALL_LANGUAGE } from "../store/recall-index/types.js";
import { DEFAULT_MODEL } from "../tokens/models.js";
import { modelNameOf, profileWindowOf } from "../tokens/model-option.js";
import { TokenCounter } from "../tokens/token-counter.js";
import { Calibration } from "./calibration.js";
import { Notices } from "./notices.js";
import type { COMPACTION_OPTIONS, CompactionOptions, SummaryLog, TriggerOption } from "./options.js";
import { resolvePolicy, type CompactionPolicy, type PolicyInput } from "./policy.js";

/** The environment variable saying the application's agents have the search_history tool ("true" or "false"). */
export const SEARCH_TOOL_ENVIRONMENT = "HISTORY_SEARCH_TOOL";
/** The environment variables options are read from (`.env.example` documents them). */
export const OPTION_ENVIRONMENT = { trigger: "TOKEN_LIMIT", compactionRatio: "COMPACTION_RATIO", model: "TOKEN_MODEL" };

/** Every part of a compaction reads these: the options, resolved. */
export interface Settings {
  policy: CompactionPolicy;
  summarizer: Summarizer;
  /** How `summarizer` was chosen (said once, SUMMARIZER_CHOSEN). */
  summarizerChoice: SummarizerChoice;
  fallbackSummarizer?: Summarizer;
  counter: TokenCounter;
  /** Counts what the provider counts where replies carry usage figures (engine/calibration.ts). */
  calibration: Calibration;
  summaryLog: SummaryLog;
  /** The line a summary message starts with, when not the library's. */
  summaryPrefix?: string;
  recall: { language: string; announce: boolean };
  keepCheckpoints?: number;
  notices: Notices;
  /** Messages never summarized besides those marked with `pinMessage` (internal: the archive's and strategies'). */
  pinned?: PinPredicate;
}

/**
 * `options` checked against `schema` (naming `runtime` in a refusal), then resolved. `requireTrigger`: the runtime
 * compacts over a trigger (all but HistoryManager); `names`: how errors spell options the caller took from elsewhere
 * (the script's flags).
 * @throws CompactionError INVALID_ARGUMENT naming the option (or the variable of `env`) and its value;
 *   MISSING_DEPENDENCY for a `model` whose provider's package is not installed.
 */
export function resolveSettings<S extends typeof COMPACTION_OPTIONS>(
  runtime: string,
  schema: S,
  options: z.input<S>,
  {
    counter: given,
    requireTrigger = false,
    names: spelled = {},
  }: { counter?: TokenCounter; requireTrigger?: boolean; names?: Partial<Record<string, string>> } = {},
): Settings {
  const parsed = parseOptions(runtime, schema, options, (key) => spelled[key] ?? key) as CompactionOptions & {
    keepCheckpoints?: number;
  };
  const env = parsed.env ?? {};
  const fromEnv = environmentOptions(env, parsed);
  const modelName = modelNameOf(parsed.model ?? fromEnv.model) ?? DEFAULT_MODEL;
  const trigger = parsed.trigger ?? fromEnv.trigger;
  if (trigger === undefined && requireTrigger)
    throw new CompactionError({
      code: "INVALID_ARGUMENT",
      parameter: "trigger",
      message: `${runtime} needs a trigger: when to compact, e.g. trigger: { tokens: 32000 } or { fraction: 0.8 } of the model's window (or TOKEN_LIMIT in \`env\`); got none`,
    });
  const counter = given ?? new TokenCounter({ model: modelName });
  const { summarizer, choice } = chooseSummarizer(parsed.summarizer, {
    env,
    counter,
    model: parsed.model,
    wording: parsed,
  });
  const names: PolicyInput["names"] = {
    ...(parsed.trigger === undefined && fromEnv.trigger !== undefined ? { trigger: OPTION_ENVIRONMENT.trigger } : {}),
    ...(parsed.compactionRatio === undefined && fromEnv.compactionRatio !== undefined
      ? { compactionRatio: OPTION_ENVIRONMENT.compactionRatio }
      : {}),
    ...(spelled as PolicyInput["names"]),
  };
  const policy = resolvePolicy({
    trigger,
    keep: parsed.keep,
    compactionRatio: parsed.compactionRatio ?? fromEnv.compactionRatio,
    model: modelName,
    window: profileWindowOf(parsed.model),
    summaryLog: parsed.summaryLog,
    summarizerMaxTokens: summarizer.maxTokens ?? DEFAULT_SUMMARIZER_MAX_TOKENS,
    names,
  });
  const notices = new Notices();
  const fallback = parsed.fallbackSummarizer;
  return {
    policy,
    summarizer,
    summarizerChoice: choice,
    ...(fallback === undefined
      ? {}
      : { fallbackSummarizer: fallback === "extractive" ? new ExtractiveSummarizer({ counter }) : fallback }),
    counter,
    calibration: new Calibration(counter, (notice) => notices.say(notice), parsed.tokenCounter),
    summaryLog: parsed.summaryLog ?? "rewrite",
    ...(parsed.summaryPrefix === undefined ? {} : { summaryPrefix: parsed.summaryPrefix }),
    recall: {
      language: parsed.recall?.language ?? DEFAULT_RECALL_LANGUAGE,
      announce: parsed.recall?.announce ?? announceFromEnv(env) ?? false,
    },
    ...(parsed.keepCheckpoints === undefined ? {} : { keepCheckpoints: parsed.keepCheckpoints }),
    notices,
  };
}

/**
 * The options `env` sets that the code leaves unset: TOKEN_LIMIT (tokens, or a fraction <= 1 of the window: text
 * names its unit by its form), COMPACTION_RATIO (unless `keep` is given), TOKEN_MODEL; an empty value is unset.
 * @throws CompactionError INVALID_ARGUMENT naming the variable and its value.
 */
export function environmentOptions(
  env: Record<string, string | undefined>,
  given: Pick<CompactionOptions, "trigger" | "keep" | "compactionRatio" | "model"> = {},
): { trigger?: TriggerOption; compactionRatio?: number; model?: string } {
  const raw = (key: string) => (env[key]?.trim() ? env[key]!.trim() : undefined);
  const limit = given.trigger === undefined ? raw(OPTION_ENVIRONMENT.trigger) : undefined;
  const ratio =
    given.compactionRatio === undefined && given.keep === undefined
      ? raw(OPTION_ENVIRONMENT.compactionRatio)
      : undefined;
  const model = given.model === undefined ? raw(OPTION_ENVIRONMENT.model) : undefined;
  return {
    ...(limit === undefined ? {} : { trigger: triggerOfText(OPTION_ENVIRONMENT.trigger, limit) }),
    ...(ratio === undefined
      ? {}
      : {
          compactionRatio: numberArgument(
            OPTION_ENVIRONMENT.compactionRatio,
            ratio,
            number(RATIO_RULE, { above: 0, below: 1 }),
          ),
        }),
    ...(model === undefined ? {} : { model }),
  };
}

/** A limit typed as text (TOKEN_LIMIT, `--limit`): tokens, or a fraction <= 1 of the window. */
export function triggerOfText(parameter: string, text: string): TriggerOption {
  const value = numberArgument(
    parameter,
    text,
    number("a positive number of tokens, or a fraction (0 < x <= 1) of the model's context window", { above: 0 }),
  );
  return value <= 1 ? { fraction: value } : { tokens: value };
}

function announceFromEnv(env: Record<string, string | undefined>): boolean | undefined {
  const raw = env[SEARCH_TOOL_ENVIRONMENT]?.trim().toLowerCase();
  if (!raw) return undefined;
  if (["true", "1", "yes"].includes(raw)) return true;
  if (["false", "0", "no"].includes(raw)) return false;
  throw new CompactionError({
    code: "INVALID_ARGUMENT",
    parameter: SEARCH_TOOL_ENVIRONMENT,
    value: env[SEARCH_TOOL_ENVIRONMENT],
    message: `${SEARCH_TOOL_ENVIRONMENT} must be true or false; got ${JSON.stringify(env[SEARCH_TOOL_ENVIRONMENT])}`,
  });
}
