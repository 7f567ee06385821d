import { reindexThread } from "../../recall/reindex.js";
import { threadsOf, type CliContext } from "../context.js";
import { number, table } from "../format.js";

export const REINDEX_HELP = `reindex <thread> | --all — rebuild the recall index of a thread (or of every thread) from its checkpoint
history: for threads compacted before the index existed, or after changing --language. Idempotent; writes only
the index, never a checkpoint.

Usage: npx compact-thread reindex (<thread> | --all) (--db <file> | --postgres <url>) [--language L] [--json]

Examples:
  npx compact-thread reindex support-42 --db data/app.sqlite
  npx compact-thread reindex --all --postgres "$POSTGRES_URL" --language english`;

export async function reindexCommand(context: CliContext, threadId: string | undefined): Promise<void> {
  const threads = await threadsOf(context, threadId, "reindex");
  const options = context.options.language ? { language: context.options.language } : {};
  const reports = [];
  for (const id of threads)
    reports.push(await reindexThread(context.store.saver, { configurable: { thread_id: id } }, options));
  if (context.json) return context.printer.line(JSON.stringify({ threads: reports }, null, 2));
  for (const line of table(
    reports.map((report) => ({
      thread: report.threadId,
      indexed: number(report.indexed),
      "checkpoints read": number(report.checkpoints),
    })),
  )) {
    context.printer.line(line);
  }
  context.printer.line(
    `${reports.length} thread(s) reindexed, ${number(reports.reduce((sum, report) => sum + report.indexed, 0))} message(s) in the index`,
  );
}
