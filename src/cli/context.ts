import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { CompactionError, invalidArgument, threadNotFound } from "../errors.js";
import { openPostgresStore, openSqliteStore, type OpenedStore } from "../store/open.js";
import { readThreadHead, type ThreadHead } from "../store/read-head.js";
import { TokenCounter } from "../tokens/token-counter.js";
import { createPrinter, type Printer } from "./format.js";

export const OPTIONS = {
  db: { type: "string" },
  postgres: { type: "string" },
  schema: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
  limit: { type: "string" },
  model: { type: "string" },
  ratio: { type: "string" },
  summarizer: { type: "string" },
  "dry-run": { type: "boolean" },
  all: { type: "boolean" },
  over: { type: "string" },
  checkpoint: { type: "string" },
  sort: { type: "string" },
  language: { type: "string" },
} as const;

export type ParsedOptions = ReturnType<typeof parseCommandLine>["values"];

export function parseCommandLine(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CompactionError({ code: "INVALID_ARGUMENT", parameter: "arguments", value: argv.join(" "), message: `${(error as Error).message}. Run with --help for usage.` });
  }
}

export function positiveInteger(parameter: string, raw: string | undefined, fallback?: number): number | undefined {
  if (raw === undefined) return fallback;
  const value = Number(raw.replace(/_/g, ""));
  if (!Number.isInteger(value) || value <= 0) throw invalidArgument(parameter, raw, "a positive integer number of tokens");
  return value;
}

export interface CliContext {
  store: OpenedStore;
  counter: TokenCounter;
  printer: Printer;
  json: boolean;
  env: NodeJS.ProcessEnv;
  /** The token limit shown against threads (--limit, TOKEN_LIMIT, or 4,000). */
  limit: number;
  options: ParsedOptions;
  /** The store options to repeat in a follow-up command (a Postgres password left out). */
  storeArgs: string;
}

/** TOKEN_LIMIT as .env documents it: a number of tokens, or a fraction (0 < x <= 1) of the model's window. */
function envTokenLimit(raw: string | undefined, contextWindow: number): number | undefined {
  if (raw === undefined || raw.trim() === "") return undefined;
  const value = Number(raw.replace(/_/g, ""));
  if (Number.isFinite(value) && value > 0 && value <= 1) return Math.floor(value * contextWindow);
  if (Number.isInteger(value) && value > 1) return value;
  throw invalidArgument("TOKEN_LIMIT", raw, "a positive integer number of tokens, or a fraction (0 < x <= 1) of the model's context window");
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

export async function openContext(options: ParsedOptions, env: NodeJS.ProcessEnv, command?: string): Promise<CliContext> {
  const dbPath = options.db ?? (options.postgres ? undefined : env.DATABASE_PATH);
  const url = options.postgres ?? (dbPath ? undefined : env.POSTGRES_URL);
  if (options.db && options.postgres) throw invalidArgument("--db / --postgres", `${options.db} and ${options.postgres}`, "one store, not both");
  if (!dbPath && !url) {
    // A usage error (exit 2), not a bad store (exit 4, which --db / --postgres errors map to).
    throw new CompactionError({ code: "INVALID_ARGUMENT", parameter: "store", value: undefined, message: "no store given: pass --db <file.sqlite> or --postgres <url> (or set DATABASE_PATH / POSTGRES_URL)" });
  }
  // search reads --limit as a number of hits; every other command as a number of tokens.
  const tokenLimit = options.limit !== undefined && command !== "search" ? options.limit : undefined;
  const model = options.model ?? env.TOKEN_MODEL ?? "gpt-4o";
  const counter = new TokenCounter({ model });
  const limit = positiveInteger("--limit", tokenLimit, envTokenLimit(env.TOKEN_LIMIT, counter.contextWindow) ?? 4_000)!;
  const store = dbPath ? await openSqliteStore(dbPath) : await openPostgresStore(url!, { schema: options.schema ?? "public" });
  const storeArgs = storeArgsOf(dbPath, url, options.schema);
  return { store, counter, printer: createPrinter(process.stdout, env), json: Boolean(options.json), env, limit, options, storeArgs };
}

export async function requireThread(context: CliContext, threadId: string | undefined): Promise<ThreadHead> {
  if (!threadId) throw new CompactionError({ code: "INVALID_ARGUMENT", parameter: "thread", value: threadId, message: "a thread id is required (see the list command)" });
  const head = await readThreadHead(context.store.saver, threadId);
  if (!head) throw threadNotFound(threadId);
  return head;
}

export function loadDotEnv(env: NodeJS.ProcessEnv): void {
  if (env === process.env && existsSync(".env")) process.loadEnvFile(".env");
}
