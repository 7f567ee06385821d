import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { CompactionError, threadNotFound } from "../errors.js";
import { argument, numberArgument } from "../options/check.js";
import { SHARED_FIELDS, tokenLimit } from "../options/fields.js";
import { absent, never, oneOf, RATIO_RULE } from "../options/rules.js";
import { resolvePolicy, type CompactionPolicy } from "../engine/policy.js";
import type { SummaryLog } from "../engine/summary-log.js";
import { numberOf, withEnvironment } from "../engine/policy-environment.js";
import { modelNameOf } from "../tokens/model-option.js";
import { openPostgresStore, openSqliteStore, type OpenedStore } from "../store/open.js";
import type { ThreadHead } from "../store/read-head.js";
import { createDefaultSummarizer } from "../summarizers/default.js";
import { ExtractiveSummarizer } from "../summarizers/extractive.js";
import { DEFAULT_SUMMARY_MODEL } from "../summarizers/llm.js";
import { createOpenAISummarizer } from "../summarizers/openai.js";
import { DEFAULT_SUMMARIZER_MAX_TOKENS, type Summarizer } from "../summarizers/types.js";
import { TokenCounter } from "../tokens/token-counter.js";
import { Calibration } from "../engine/calibration.js";
import { createPrinter, type Printer } from "./format.js";
import { didYouMean } from "./suggest.js";

export const OPTIONS = {
  db: { type: "string" },
  postgres: { type: "string" },
  schema: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
  limit: { type: "string" },
  hits: { type: "string" },
  speaker: { type: "string" },
  from: { type: "string" },
  to: { type: "string" },
  model: { type: "string" },
  ratio: { type: "string" },
  summarizer: { type: "string" },
  "summary-log": { type: "string" },
  "dry-run": { type: "boolean" },
  vacuum: { type: "boolean" },
  all: { type: "boolean" },
  over: { type: "string" },
  checkpoint: { type: "string" },
  sort: { type: "string" },
  language: { type: "string" },
  "busy-timeout": { type: "string" },
  "every-checkpoint": { type: "boolean" },
  html: { type: "string" },
  transcript: { type: "boolean" },
  keep: { type: "string" },
  once: { type: "boolean" },
  concurrency: { type: "string" },
  "host-concurrency": { type: "string" },
  idle: { type: "string" },
  poll: { type: "string" },
} as const;

import { milliseconds } from "./flags.js";

export { countFlag, keepFlag, milliseconds } from "./flags.js";

export type ParsedOptions = ReturnType<typeof parseCommandLine>["values"];

/**
 * `--limit -3` as `--limit=-3`: node's parseArgs reads a value that starts with "-" as an option and says only "argument
 * is ambiguous"; joined, the value reaches the flag's own check, which names the valid range.
 */
function joinNegativeValues(argv: string[]): string[] {
  const joined: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    const next = argv[index + 1];
    const name = arg.startsWith("--") ? arg.slice(2) : undefined;
    if (
      name &&
      next !== undefined &&
      /^-[\d.]/.test(next) &&
      OPTIONS[name as keyof typeof OPTIONS]?.type === "string"
    ) {
      joined.push(`${arg}=${next}`);
      index++;
    } else {
      joined.push(arg);
    }
  }
  return joined;
}

export function parseCommandLine(given: string[], invokedAs = "npx compact-thread") {
  const argv = joinNegativeValues(given);
  try {
    return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
      // Node's own message quotes the option unevenly and suggests nothing: name it, and the closest known one.
      const loose = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: false, tokens: true });
      const unknown = loose.tokens.find((token) => token.kind === "option" && !(token.name in OPTIONS));
      const raw = unknown?.kind === "option" ? unknown.rawName : (argv.find((arg) => arg.startsWith("-")) ?? "");
      const command = loose.positionals[0];
      throw new CompactionError({
        code: "INVALID_ARGUMENT",
        parameter: "arguments",
        value: raw,
        message: `unknown option ${raw}.${didYouMean(raw.replace(/^-+/, ""), Object.keys(OPTIONS), (name) => `--${name}`)} Run "${invokedAs}${command ? ` ${command}` : ""} --help" for the options.`,
      });
    }
    throw new CompactionError({
      code: "INVALID_ARGUMENT",
      parameter: "arguments",
      value: argv.join(" "),
      message: `${(error as Error).message}. Run "${invokedAs} --help" for usage.`,
    });
  }
}

/** The token limit of a script run given neither --limit nor TOKEN_LIMIT (the value .env.example shows). */
export const DEFAULT_SCRIPT_TOKEN_LIMIT = 4_000;

export interface CliContext {
  store: OpenedStore;
  counter: TokenCounter;
  /** Counts a head as the runtimes do: calibrated by the provider's figures where replies carry them. */
  calibration: Calibration;
  printer: Printer;
  json: boolean;
  env: NodeJS.ProcessEnv;
  /** The policy, resolved as the wrapper resolves its own: --limit / TOKEN_LIMIT, --ratio / COMPACTION_RATIO, --model / TOKEN_MODEL. */
  policy: CompactionPolicy & { tokenLimit: number };
  /** The summarizer compactions use: --summarizer, else the wrapper's default (LLM when OPENAI_API_KEY is set). */
  summarizer: Summarizer;
  /** The summary compactions write: --summary-log (compact, watch), else a running summary, as the wrapper's. */
  summaryLog?: SummaryLog;
  /** The token limit shown against threads and compacted above: the policy's tokenLimit. */
  limit: number;
  options: ParsedOptions;
  /** The store options to repeat in a follow-up command (a Postgres password left out). */
  storeArgs: string;
  /** How the user runs the script, for follow-up commands it prints ("npx compact-thread", "npm run compact --"). */
  invokedAs: string;
}

function quote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
}

function storeArgsOf(dbPath: string | undefined, url: string | undefined, schema: string | undefined): string {
  if (dbPath) return `--db ${quote(dbPath)}`;
  let shown = url!;
  try {
    const parsed = new URL(url!);
    if (parsed.password) parsed.password = "<password>";
    shown = parsed.toString();
  } catch {
    // Not a URL (a key=value connection string): shown as given.
  }
  return `--postgres ${quote(shown)}${schema && schema !== "public" ? ` --schema ${quote(schema)}` : ""}`;
}

export async function openContext(
  options: ParsedOptions,
  env: NodeJS.ProcessEnv,
  command?: string,
  invokedAs = "npx compact-thread",
): Promise<CliContext> {
  const dbPath = options.db ?? (options.postgres ? undefined : env.DATABASE_PATH);
  const url = options.postgres ?? (dbPath ? undefined : env.POSTGRES_URL);
  if (options.db && options.postgres)
    argument("--db / --postgres", `${options.db} and ${options.postgres}`, never("one store, not both"));
  if (!dbPath && !url) {
    // A usage error (exit 2), not a bad store (exit 4, which --db / --postgres errors map to).
    throw new CompactionError({
      code: "INVALID_ARGUMENT",
      parameter: "store",
      value: undefined,
      message: "no store given: pass --db <file.sqlite> or --postgres <url> (or set DATABASE_PATH / POSTGRES_URL)",
    });
  }
  const counter = new TokenCounter({
    model: modelNameOf(options.model, "--model") ?? (env.TOKEN_MODEL?.trim() || undefined),
  });
  const summarizer = createSummarizer(options, env, counter);
  const summaryLog = summaryLogOf(options, command);
  const policy = resolveScriptPolicy(options, env, command, summarizer, summaryLog);
  const recallLanguage = options.language;
  const busyTimeoutMs =
    options["busy-timeout"] === undefined ? undefined : milliseconds("--busy-timeout", options["busy-timeout"]);
  if (busyTimeoutMs !== undefined && !dbPath)
    argument("--busy-timeout", options["busy-timeout"], absent("used with a SQLite store (--db)"));
  const store = dbPath
    ? await openSqliteStore(dbPath, {
        ...(recallLanguage ? { recallLanguage } : {}),
        ...(busyTimeoutMs === undefined ? {} : { busyTimeoutMs }),
      })
    : await openPostgresStore(url!, {
        schema: options.schema ?? "public",
        ...(recallLanguage ? { recallLanguage } : {}),
      });
  const storeArgs = storeArgsOf(dbPath, url, options.schema);
  return {
    store,
    counter,
    calibration: new Calibration(counter),
    summarizer,
    ...(summaryLog ? { summaryLog } : {}),
    policy,
    printer: createPrinter(process.stdout, env),
    json: Boolean(options.json),
    env,
    limit: policy.tokenLimit,
    options,
    storeArgs,
    invokedAs,
  };
}

/**
 * The script's policy, read exactly as the wrapper reads its own (`policyFromEnv`), a command-line flag winning over
 * the environment: --limit over TOKEN_LIMIT (4,000 when neither), --ratio over COMPACTION_RATIO, --model over
 * TOKEN_MODEL. Errors name the flag or the variable that was wrong.
 */
function resolveScriptPolicy(
  options: ParsedOptions,
  env: NodeJS.ProcessEnv,
  command: string | undefined,
  summarizer: Summarizer,
  summaryLog: SummaryLog | undefined,
): CompactionPolicy & { tokenLimit: number } {
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
  // A number of tokens, or a fraction (<= 1) of the model's context window, as TOKEN_LIMIT (resolvePolicy checks the
  // rest); a value that is no positive number is named as typed.
  const flags = {
    tokenLimit: rawLimit === undefined ? undefined : numberArgument(limitFlag, rawLimit, tokenLimit),
    compactionRatio: options.ratio === undefined ? undefined : numberOf("--ratio", options.ratio, RATIO_RULE),
    model: options.model,
  };
  const { options: merged, names } = withEnvironment(flags, env);
  if (flags.tokenLimit !== undefined) names.tokenLimit = limitFlag;
  if (flags.compactionRatio !== undefined) names.compactionRatio = "--ratio";
  if (flags.model !== undefined) names.model = "--model";
  const policy = resolvePolicy(
    { ...merged, tokenLimit: merged.tokenLimit ?? DEFAULT_SCRIPT_TOKEN_LIMIT },
    { summarizerMaxTokens: summarizer.maxTokens ?? DEFAULT_SUMMARIZER_MAX_TOKENS, names, summaryLog },
  );
  return policy as CompactionPolicy & { tokenLimit: number };
}

/** --summary-log rewrite|append: for the commands that write a summary (the option `summaryLog`'s rule). */
function summaryLogOf(options: ParsedOptions, command: string | undefined): SummaryLog | undefined {
  const raw = options["summary-log"];
  if (raw !== undefined && command !== "compact" && command !== "watch")
    argument("--summary-log", raw, absent("used with compact or watch"));
  return raw === undefined ? undefined : argument("--summary-log", raw, SHARED_FIELDS.summaryLog);
}

/** --summarizer extractive|openai, else the wrapper's default: the OpenAI summarizer when OPENAI_API_KEY is set. */
function createSummarizer(options: ParsedOptions, env: NodeJS.ProcessEnv, counter: TokenCounter): Summarizer {
  const choice = options.summarizer;
  if (choice === undefined) return createDefaultSummarizer({ env, counter });
  if (choice === "extractive") return new ExtractiveSummarizer({ counter });
  argument("--summarizer", choice, oneOf(["extractive", "openai"], '"extractive" or "openai"'));
  if (!env.OPENAI_API_KEY)
    argument("--summarizer", choice, never("usable: set OPENAI_API_KEY for the openai summarizer"));
  return createOpenAISummarizer({
    apiKey: env.OPENAI_API_KEY,
    model: options.model ?? (env.SUMMARY_MODEL || env.OPENAI_MODEL || DEFAULT_SUMMARY_MODEL),
    baseURL: env.OPENAI_BASE_URL || undefined,
  });
}

export async function requireThread(context: CliContext, threadId: string | undefined): Promise<ThreadHead> {
  if (!threadId)
    throw new CompactionError({
      code: "INVALID_ARGUMENT",
      parameter: "thread",
      value: threadId,
      message: "a thread id is required (see the list command)",
    });
  const head = await context.store.threads.readHead(threadId);
  if (!head) throw threadNotFound(threadId);
  return head;
}

export function loadDotEnv(env: NodeJS.ProcessEnv): void {
  if (env === process.env && existsSync(".env")) process.loadEnvFile(".env");
}
