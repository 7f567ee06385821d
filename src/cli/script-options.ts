/**
 * The script's options in the library's vocabulary: its flags and the environment, as the one resolver
 * (engine/settings.ts) takes every runtime's options.
 */
import { argument, numberArgument } from "../options/check.js";
import { absent, never, number, oneOf, RATIO_RULE } from "../options/rules.js";
import type { CompactionOptions } from "../engine/options.js";
import { triggerOfText } from "../engine/settings.js";
import type { SummaryLog } from "../engine/options.js";
import { ExtractiveSummarizer } from "../summarizers/extractive.js";
import { DEFAULT_SUMMARY_MODEL } from "../summarizers/llm.js";
import { createOpenAISummarizer } from "../summarizers/openai.js";
import type { Summarizer } from "../summarizers/types.js";

/** The flags a script run gives that the library's options are read from. */
interface ScriptFlags {
  limit?: string | undefined;
  over?: string | undefined;
  ratio?: string | undefined;
  model?: string | undefined;
  summarizer?: string | undefined;
  language?: string | undefined;
  all?: boolean | undefined;
  "summary-log"?: string | undefined;
}

/** The token limit of a script run given neither --limit nor TOKEN_LIMIT (the value .env.example shows). */
export const DEFAULT_SCRIPT_TOKEN_LIMIT = 4_000;

/**
 * The options the command line gives, in the library's vocabulary: --limit (or --over with compact --all) over
 * TOKEN_LIMIT (4,000 when neither), --ratio over COMPACTION_RATIO, --model over TOKEN_MODEL, --summarizer,
 * --summary-log and --language; the rest is read from the environment as every runtime reads `env`. Errors name the
 * flag or the variable that was wrong.
 */
export function scriptOptions(
  options: ScriptFlags,
  env: NodeJS.ProcessEnv,
  command: string | undefined,
  summaryLog: SummaryLog | undefined,
): CompactionOptions {
  // search reads --limit as a number of hits; every other command as a number of tokens.
  if (!(command === "compact" && options.all)) argument("--over", options.over, absent("used with compact --all"));
  if (options.limit !== undefined)
    argument(
      "--over",
      options.over,
      absent("left out when --limit is given (--over N is --limit N for compact --all)"),
    );
  const limitFlag = options.over !== undefined ? "--over" : "--limit";
  const rawLimit = command === "search" ? undefined : (options.over ?? options.limit);
  const trigger =
    rawLimit !== undefined
      ? triggerOfText(limitFlag, rawLimit)
      : env.TOKEN_LIMIT?.trim()
        ? undefined
        : { tokens: DEFAULT_SCRIPT_TOKEN_LIMIT };
  const summarizer = createSummarizer(options, env);
  return {
    env,
    ...(trigger ? { trigger } : {}),
    ...(options.ratio === undefined
      ? {}
      : { compactionRatio: numberArgument("--ratio", options.ratio, number(RATIO_RULE)) }),
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(summarizer ? { summarizer } : {}),
    ...(summaryLog ? { summaryLog } : {}),
    ...(options.language ? { recall: { language: options.language } } : {}),
  };
}

/** --summary-log rewrite|append: for the commands that write a summary (the option `summaryLog`'s rule). */
export function summaryLogOf(options: ScriptFlags, command: string | undefined): SummaryLog | undefined {
  const raw = options["summary-log"];
  if (raw !== undefined && command !== "compact" && command !== "watch")
    argument("--summary-log", raw, absent("used with compact or watch"));
  return raw === undefined
    ? undefined
    : argument("--summary-log", raw, oneOf(["rewrite", "append"], '"rewrite" or "append"'));
}

/** --summarizer extractive|openai, else undefined: the wrapper's default (the OpenAI summarizer when OPENAI_API_KEY is set). */
function createSummarizer(options: ScriptFlags, env: NodeJS.ProcessEnv): Summarizer | undefined {
  const choice = options.summarizer;
  if (choice === undefined) return undefined;
  if (choice === "extractive") return new ExtractiveSummarizer();
  argument("--summarizer", choice, oneOf(["extractive", "openai"], '"extractive" or "openai"'));
  if (!env.OPENAI_API_KEY)
    argument("--summarizer", choice, never("usable: set OPENAI_API_KEY for the openai summarizer"));
  return createOpenAISummarizer({
    apiKey: env.OPENAI_API_KEY,
    model: options.model ?? (env.SUMMARY_MODEL || env.OPENAI_MODEL || DEFAULT_SUMMARY_MODEL),
    baseURL: env.OPENAI_BASE_URL || undefined,
  });
}
