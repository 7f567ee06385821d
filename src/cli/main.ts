/**
 * The compaction script: inspect and compact stored threads (SQLite or Postgres) with no graph running.
 */
// The SQLite and Postgres backends, registered for every saver of theirs (store/all-backends.ts).
import "../store/all-backends.js";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { asStoreError, CompactionError } from "../errors.js";
import { COMPACT_HELP, compactCommand } from "./commands/compact.js";
import { HISTORY_HELP, historyCommand } from "./commands/history.js";
import { INSPECT_HELP, inspectCommand } from "./commands/inspect.js";
import { LIST_HELP, listCommand } from "./commands/list.js";
import { REINDEX_HELP, reindexCommand } from "./commands/reindex.js";
import { RESTORE_HELP, restoreCommand } from "./commands/restore.js";
import { PRUNE_HELP, pruneCommand } from "./commands/prune.js";
import { REPORT_HELP, reportCommand } from "./commands/report.js";
import { SEARCH_HELP, searchCommand } from "./commands/search.js";
import { WATCH_HELP, watchCommand, watchSettings } from "./commands/watch.js";
import { loadDotEnv, openContext, parseCommandLine } from "./context.js";
import { EXIT, exitCodeOf } from "./exit-codes.js";
import { didYouMean } from "./suggest.js";

/** How the user runs the script: "npx compact-thread" (the installed package) or "npm run compact --" (this repository). */
export interface Invocation {
  command: string;
  /** Printed under the usage: how to get clean --json output through npm. */
  note?: string;
}

export const INSTALLED: Invocation = { command: "npx compact-thread" };

export const mainHelp = (
  invocation: Invocation = INSTALLED,
) => `compact-thread — inspect and compact stored LangGraph threads, SQLite or Postgres

Usage: ${invocation.command} <command> [thread] (--db <file.sqlite> | --postgres <url>) [options] [--json]

Commands:
  list                         every thread: messages, tokens, checkpoints, last update, idle or busy
  inspect <thread>             the head's messages, total against a limit, current summary, compactable?
  compact <thread>             plan and compact (--dry-run to only plan); compact --all --over N for many
  history <thread>             checkpoints with tokens; compactions marked
  restore <thread> --checkpoint <id>
                               make an earlier checkpoint's messages the head again (an undo)
  search <thread> <words…>     search the messages compaction took out of the head (--hits N, --speaker, --from, --to)
  reindex <thread> | --all     rebuild the recall index from the checkpoint history
  report <thread> [--html F]   tokens over the turns with compactions marked, the transcript, the storage (a page)
  prune <thread> | --all       delete the checkpoints the transcript makes redundant (--keep N newest, default 3)
  watch                        run compaction jobs on Postgres (pg-boss) beside other workers, until stopped (--once)

Store options: --db <file.sqlite>, or --postgres <url> with --schema <name> for checkpoint tables outside the
"public" schema. The store can also come from .env: DATABASE_PATH or POSTGRES_URL (TOKEN_LIMIT, TOKEN_MODEL and
COMPACTION_RATIO too). --limit N is the token limit everywhere: list and inspect show threads against it, compact
compacts a thread over it. Run "${invocation.command} <command> --help" for each command; --version prints the version.${invocation.note ? `\n${invocation.note}` : ""}
Exit codes: 0 ok, 1 unexpected, 2 bad arguments, 3 store missing or unreachable, 4 not a checkpoint store,
5 unknown thread, 6 thread busy or interrupted, 7 summarizer failed, 8 checkpoint not in thread, 9 write conflict,
10 SQLite store locked by another process past the busy timeout (--busy-timeout <ms>, default 5000), 11 a history
that cannot be written as it is (a checkpoint in the middle of a turn: a tool call without its result).`;

const HELP: Record<string, string> = {
  list: LIST_HELP,
  inspect: INSPECT_HELP,
  compact: COMPACT_HELP,
  history: HISTORY_HELP,
  restore: RESTORE_HELP,
  search: SEARCH_HELP,
  reindex: REINDEX_HELP,
  report: REPORT_HELP,
  prune: PRUNE_HELP,
  watch: WATCH_HELP,
};

/** The version in the package's own package.json, the nearest one above this file (in src/ or in dist/). */
function ownVersion(): string {
  for (let directory = dirname(fileURLToPath(import.meta.url)); ; directory = dirname(directory)) {
    const candidate = join(directory, "package.json");
    if (existsSync(candidate)) {
      const manifest = JSON.parse(readFileSync(candidate, "utf8")) as { name?: string; version?: string };
      if (manifest.name === "langgraph-compaction" && manifest.version) return manifest.version;
    }
    if (dirname(directory) === directory) return "unknown";
  }
}

/**
 * The script's entry point (the package's bin, and npm run compact in this repository): runs `main` and sets the
 * exit code. Output piped into a reader that stops early (\`| head\`) ends the script quietly, as Unix tools do.
 */
export async function runCli(invocation: Invocation = INSTALLED): Promise<void> {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? EXIT.ok);
    throw error;
  });
  process.exitCode = await main(process.argv.slice(2), process.env, invocation);
}

/** Run the script; resolves to the exit code. Errors are one line on stderr. */
export async function main(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  invocation: Invocation = INSTALLED,
): Promise<number> {
  try {
    loadDotEnv(env);
    const { values: options, positionals } = parseCommandLine(argv, invocation.command);
    const [command, threadId, ...extra] = positionals;
    if (options.version) {
      process.stdout.write(`${ownVersion()}\n`);
      return EXIT.ok;
    }
    if (!command) {
      process.stdout.write(`${mainHelp(invocation)}\n`);
      return options.help ? EXIT.ok : EXIT.usage;
    }
    if (!(command in HELP)) {
      throw new CompactionError({
        code: "INVALID_ARGUMENT",
        parameter: "command",
        value: command,
        message: `unknown command ${JSON.stringify(command)}.${didYouMean(command, Object.keys(HELP))} The commands: ${Object.keys(HELP).join(", ")}.`,
      });
    }
    if (options.help) {
      process.stdout.write(`${HELP[command]!.replaceAll("npx compact-thread", invocation.command)}\n`);
      return EXIT.ok;
    }
    if (extra.length > 0 && command !== "search") {
      throw new CompactionError({
        code: "INVALID_ARGUMENT",
        parameter: "arguments",
        value: extra.join(" "),
        message: `unexpected argument(s): ${extra.join(" ")}`,
      });
    }
    if (command === "list" && threadId) {
      throw new CompactionError({
        code: "INVALID_ARGUMENT",
        parameter: "arguments",
        value: threadId,
        message: `list takes no thread (got ${threadId})`,
      });
    }
    if (command === "search" && options.limit !== undefined) {
      throw new CompactionError({
        code: "INVALID_ARGUMENT",
        parameter: "--limit",
        value: options.limit,
        message:
          "search takes --hits N for the number of hits; --limit is the token limit of list, inspect and compact",
      });
    }
    if (command !== "search" && options.hits !== undefined) {
      throw new CompactionError({
        code: "INVALID_ARGUMENT",
        parameter: "--hits",
        value: options.hits,
        message: `--hits is the number of hits of search; ${command} does not take it`,
      });
    }
    for (const flag of ["speaker", "from", "to"] as const) {
      if (command !== "search" && options[flag] !== undefined) {
        throw new CompactionError({
          code: "INVALID_ARGUMENT",
          parameter: `--${flag}`,
          value: options[flag],
          message: `--${flag} narrows a search; ${command} does not take it`,
        });
      }
    }
    if (command === "watch" && threadId) {
      throw new CompactionError({
        code: "INVALID_ARGUMENT",
        parameter: "arguments",
        value: threadId,
        message: `watch takes no thread (got ${threadId}): it watches every thread of the store`,
      });
    }
    if (command === "watch" && options.db !== undefined) {
      throw new CompactionError({
        code: "UNSUPPORTED",
        value: options.db,
        message: `watch runs compaction jobs on Postgres (pg-boss), not on a SQLite file (${String(options.db)}): on SQLite, compaction runs in the application's process (the wrapper or the middleware), and compact --all compacts every thread once`,
      });
    }
    // Checked before the store is opened: a bad flag writes nothing.
    const watching = command === "watch" ? watchSettings(options) : undefined;
    const context = await openContext(options, env, command, invocation.command);
    try {
      const writes =
        command === "restore" ||
        command === "reindex" ||
        command === "watch" ||
        ((command === "compact" || command === "prune") && !options["dry-run"]);
      if (writes && context.store.readOnly) {
        throw new CompactionError({
          code: "STORE_READ_ONLY",
          value: options.db,
          message: `${command} writes to the store, and this process cannot write ${options.db}; list, inspect, history, search, report, compact --dry-run and prune --dry-run still work. Nothing was written.`,
        });
      }
      switch (command) {
        case "list":
          await listCommand(context);
          return EXIT.ok;
        case "inspect":
          await inspectCommand(context, threadId);
          return EXIT.ok;
        case "compact":
          return await compactCommand(context, threadId);
        case "history":
          await historyCommand(context, threadId);
          return EXIT.ok;
        case "search":
          await searchCommand(context, threadId, extra);
          return EXIT.ok;
        case "reindex":
          await reindexCommand(context, threadId);
          return EXIT.ok;
        case "prune":
          await pruneCommand(context, threadId);
          return EXIT.ok;
        case "report":
          await reportCommand(context, threadId);
          return EXIT.ok;
        case "watch":
          return await watchCommand(context, watching!);
        default:
          await restoreCommand(context, threadId);
          return EXIT.ok;
      }
    } finally {
      await context.store.close();
    }
  } catch (raw) {
    // A driver's error that escaped a command (a lock held past the busy timeout, a lost connection) as a typed one.
    const error = asStoreError(raw);
    const code = exitCodeOf(error);
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`compact-thread: ${message.split("\n")[0]}\n`);
    if (code === EXIT.unexpected && env.DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    return code;
  }
}
