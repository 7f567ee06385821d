/**
 * The policy from the environment: the `env` option every entry point takes, the variables a policy is read from
 * (TOKEN_LIMIT, COMPACTION_RATIO, TOKEN_MODEL), and the one way options in code and the environment merge. The
 * library reads no environment of its own; the script and the demo pass the process's.
 */
import { numberArgument } from "../options/check.js";
import { TOKEN_LIMIT_RULE } from "../options/fields.js";
import { number, RATIO_RULE } from "../options/rules.js";
import { modelNameOf, profileWindowOf, type ModelOption } from "../tokens/model-option.js";
import { resolvePolicy, type CompactionPolicy, type CompactionPolicyOptions, type OptionNames } from "./policy.js";
import type { SummaryLog } from "./summary-log.js";

/** The environment variables a policy is read from (`.env.example` documents them). */
export const POLICY_ENVIRONMENT = {
  tokenLimit: "TOKEN_LIMIT",
  compactionRatio: "COMPACTION_RATIO",
  model: "TOKEN_MODEL",
} as const;

/**
 * The policy options set in `env` — TOKEN_LIMIT (tokens, or a fraction <= 1 of the window), COMPACTION_RATIO and
 * TOKEN_MODEL; an empty value is unset. The wrapper and the script read them the same way: an option given in code
 * (or on the command line) wins over the environment.
 * @throws CompactionError INVALID_ARGUMENT naming the variable and its value.
 */
export function policyFromEnv(env: Record<string, string | undefined>): CompactionPolicyOptions {
  const options: CompactionPolicyOptions = {};
  const raw = (key: string) => (env[key]?.trim() ? env[key]!.trim() : undefined);
  const limit = raw(POLICY_ENVIRONMENT.tokenLimit);
  if (limit !== undefined) options.tokenLimit = numberOf(POLICY_ENVIRONMENT.tokenLimit, limit, TOKEN_LIMIT_RULE);
  const ratio = raw(POLICY_ENVIRONMENT.compactionRatio);
  if (ratio !== undefined) options.compactionRatio = numberOf(POLICY_ENVIRONMENT.compactionRatio, ratio, RATIO_RULE);
  const model = raw(POLICY_ENVIRONMENT.model);
  if (model !== undefined) options.model = model;
  return options;
}

/**
 * `given` with the policy options it leaves unset taken from `env` (`policyFromEnv`), except `skip`, and the names
 * errors should use for the ones taken from there (the variable's). The wrapper's options and the script's flags
 * both win over the environment this one way.
 */
export function withEnvironment(
  given: Pick<CompactionPolicyOptions, keyof typeof POLICY_ENVIRONMENT>,
  env: Record<string, string | undefined>,
  { skip = [] }: { skip?: ReadonlyArray<keyof typeof POLICY_ENVIRONMENT> } = {},
): { options: Pick<CompactionPolicyOptions, keyof typeof POLICY_ENVIRONMENT>; names: OptionNames } {
  const fromEnv = policyFromEnv(env);
  const options = { ...given };
  const names: OptionNames = {};
  for (const key of Object.keys(POLICY_ENVIRONMENT) as Array<keyof typeof POLICY_ENVIRONMENT>) {
    if (given[key] !== undefined || skip.includes(key) || fromEnv[key] === undefined) continue;
    (options as Record<string, unknown>)[key] = fromEnv[key];
    names[key] = POLICY_ENVIRONMENT[key];
  }
  return { options, names };
}

/**
 * The policy options of a runtime's `options` merged with `env` as every runtime merges them (the wrapper, the
 * middleware, the node, the worker, HistoryManager): `tokenLimit`, `compactionRatio` and `model` not given are read
 * from TOKEN_LIMIT, COMPACTION_RATIO and TOKEN_MODEL — except a ratio when the cut is chosen in code, and a limit
 * when `trigger` is given. Returns them with the names errors use for those taken from `env`.
 */
export function environmentPolicy(
  options: Pick<
    CompactionPolicyOptions,
    "tokenLimit" | "compactionRatio" | "compactionTarget" | "keepTokens" | "keep" | "trigger" | "targetTokens"
  > & { model?: string },
  env: Record<string, string | undefined>,
): { options: Pick<CompactionPolicyOptions, keyof typeof POLICY_ENVIRONMENT>; names: OptionNames } {
  const cutInCode =
    options.compactionRatio !== undefined ||
    options.keepTokens !== undefined ||
    options.compactionTarget !== undefined ||
    options.keep !== undefined ||
    options.targetTokens !== undefined;
  return withEnvironment(
    { tokenLimit: options.tokenLimit, compactionRatio: options.compactionRatio, model: options.model },
    env,
    {
      skip: [
        ...(cutInCode ? (["compactionRatio"] as const) : []),
        ...(options.trigger !== undefined ? (["tokenLimit"] as const) : []),
      ],
    },
  );
}

/**
 * The policy a runtime's options ask for, the environment read for what they leave out (`environmentPolicy`): the
 * one mapping from options to `resolvePolicy`, the wrapper's and HistoryManager's alike. `model`: the tokenizer's
 * model when neither the options nor TOKEN_MODEL name one.
 * @throws CompactionError INVALID_ARGUMENT naming the option (or the variable) and its value.
 */
export function policyOfOptions(
  options: Omit<CompactionPolicyOptions, "model"> & { model?: ModelOption },
  env: Record<string, string | undefined>,
  settings: { summarizerMaxTokens: number; summaryLog?: SummaryLog | undefined; model?: string | undefined },
): CompactionPolicy {
  const { options: merged, names } = environmentPolicy({ ...options, model: modelNameOf(options.model) }, env);
  return resolvePolicy(
    {
      tokenLimit: merged.tokenLimit,
      compactionRatio: merged.compactionRatio,
      compactionTarget: options.compactionTarget,
      keepTokens: options.keepTokens,
      targetTokens: options.targetTokens,
      trigger: options.trigger,
      keep: options.keep,
      maxTokensBeforeSummary: options.maxTokensBeforeSummary,
      messagesToKeep: options.messagesToKeep,
      summaryTokens: options.summaryTokens,
      hardLimit: options.hardLimit,
      recoveryRatio: options.recoveryRatio,
      lateness: options.lateness,
      contextWindow: options.contextWindow ?? profileWindowOf(options.model),
      model: merged.model ?? settings.model,
    },
    { summarizerMaxTokens: settings.summarizerMaxTokens, names, summaryLog: settings.summaryLog },
  );
}

/** The tokenizer's model: the `model` option's name, else TOKEN_MODEL's. */
export function tokenModelOf(
  model: ModelOption | undefined,
  env: Record<string, string | undefined>,
): string | undefined {
  return modelNameOf(model ?? policyFromEnv(env).model);
}

/**
 * The number a setting typed as text spells ("4_000" and "4000" alike), or INVALID_ARGUMENT naming it with `rule`
 * (the rule of the option it sets, so a flag or a variable is refused as the option is).
 */
export function numberOf(parameter: string, raw: string, says = "a number"): number {
  // Text that spells no number is refused with the rule's own words; the number's range is checked with its option.
  return numberArgument(parameter, raw, number(says));
}
