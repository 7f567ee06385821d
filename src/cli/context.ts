import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { CompactionError, threadNotFound } from "../errors.js";
import { argument } from "../options/check.js";
import { absent, never } from "../options/rules.js";
import { HistoryManager } from "../engine/history-manager.js";
import { COMPACTION_OPTIONS, type CompactionOptions } from "../engine/options.js";
import type { CompactionPolicy } from "../engine/policy.js";
import { resolveSettings, type Settings } from "../engine/settings.js";
import type { SummaryLog } from "../engine/options.js";
import { openPostgresStore } from "../store/open-postgres.js";
import { openSqliteStore, type OpenedStore } from "../store/open-sqlite.js";
import type { ThreadHead } from "../store/read-head.js";
import type { Summarizer } from "../summarizers/types.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import type { Calibration } from "../engine/calibration.js";
import { createPrinter, type Printer } from "./format.js";
import { scriptOptions, summaryLogOf } from "./script-options.js";
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

export { DEFAULT_SCRIPT_TOKEN_LIMIT } from "./script-options.js";

export interface CliContext {
  store: OpenedStore;
  /** The options the flags and the environment give, in the library's vocabulary (what a worker is built from). */
  compaction: CompactionOptions;
  /** Those options resolved, as every runtime resolves its own (engine/settings.ts). */
  settings: Settings;
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
  /**
   * Where the limit comes from: --limit (or --over), TOKEN_LIMIT, the thread's last compaction (`threadContext`), or
   * the script's default (4,000), which is not the thread's own.
   */
  limitSource: "flag" | "environment" | "recorded" | "default";
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
  const summaryLog = summaryLogOf(options, command);
  const compaction = scriptOptions(options, env, command, summaryLog);
  const settings = resolveSettings("compact-thread", COMPACTION_OPTIONS, compaction, {
    names: {
      ...(options.limit !== undefined || options.over !== undefined
        ? { trigger: options.over !== undefined ? "--over" : "--limit" }
        : {}),
      ...(options.ratio !== undefined ? { compactionRatio: "--ratio" } : {}),
      ...(options.model !== undefined ? { model: "--model" } : {}),
    },
  });
  const policy = settings.policy as CompactionPolicy & { tokenLimit: number };
  const { counter, calibration, summarizer } = settings;
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
    compaction,
    settings,
    counter,
    calibration,
    summarizer,
    ...(summaryLog ? { summaryLog } : {}),
    policy,
    printer: createPrinter(process.stdout, env),
    json: Boolean(options.json),
    env,
    limit: policy.tokenLimit,
    limitSource:
      options.limit !== undefined || options.over !== undefined
        ? "flag"
        : compaction.trigger === undefined
          ? "environment"
          : "default",
    options,
    storeArgs,
    invokedAs,
  };
}

/** A HistoryManager over the script's store and settings. */
export function managerOf(context: CliContext): HistoryManager {
  return HistoryManager.of({ ...context.settings, store: context.store.threads });
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

/**
 * The threads a command runs on, given a thread id or `--all` (every thread the store lists), never both.
 * @throws CompactionError INVALID_ARGUMENT naming `command` when it has both or neither.
 */
export async function threadsOf(context: CliContext, threadId: string | undefined, command: string): Promise<string[]> {
  if (threadId && context.options.all)
    throw new CompactionError({
      code: "INVALID_ARGUMENT",
      parameter: "--all",
      value: threadId,
      message: `${command} takes a thread or --all, not both`,
    });
  if (!threadId && !context.options.all)
    throw new CompactionError({
      code: "INVALID_ARGUMENT",
      parameter: "thread",
      value: undefined,
      message: `${command} needs a thread id or --all`,
    });
  return threadId ? [threadId] : (await context.store.threads.listThreads()).map((row) => row.threadId);
}

export function loadDotEnv(env: NodeJS.ProcessEnv): void {
  if (env === process.env && existsSync(".env")) process.loadEnvFile(".env");
}
