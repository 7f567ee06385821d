import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { CompactionError } from "../../errors.js";
import { requireThread, type CliContext } from "../context.js";
import { threadContext } from "../thread-limit.js";
import { andSummaries, number } from "../format.js";
import { checkpointsInWords, threadReport } from "../report-data.js";
import { reportHtml } from "../report-html.js";

export const REPORT_HELP = `report <thread> — a picture of the thread: its tokens over its turns with each compaction marked (the
saw-tooth), what each compaction took out, what its summary kept and how much prompt cache it rewrote, the share of
the turns' tokens a provider's prompt cache would serve, the whole transcript (the compacted messages from the recall
index, then the head) and what the thread takes in the store. Prints a summary; --html <file>
writes it as one self-contained page (nothing is fetched when it is viewed). Reads only.

Usage: npx compact-thread report <thread> (--db <file> | --postgres <url>) [--html <file>] [--limit N] [--json]

Options:
  --html FILE     write the page there (an existing file is replaced)
  --limit N       the token limit drawn on the chart (TOKEN_LIMIT, else the one the thread's last compaction
                  recorded, else 4000)

Examples:
  npx compact-thread report support-42 --db data/app.sqlite --html support-42.html
  npx compact-thread report support-42 --postgres "$POSTGRES_URL" --json`;

export async function reportCommand(given: CliContext, threadId: string | undefined): Promise<void> {
  // The thread's own limit when its last compaction recorded one and none was given.
  const context = threadContext(given, await requireThread(given, threadId));
  const html = context.options.html;
  if (html !== undefined && html.trim() === "")
    throw new CompactionError({
      code: "INVALID_ARGUMENT",
      parameter: "--html",
      value: html,
      message: "--html needs a file name",
    });
  const report = await threadReport(context.store.threads, threadId!, context.counter, context.limit);
  if (html !== undefined) {
    const path = resolve(html);
    try {
      writeFileSync(path, reportHtml(report));
    } catch (error) {
      throw new CompactionError({
        code: "INVALID_ARGUMENT",
        parameter: "--html",
        value: html,
        message: `cannot write ${path}: ${(error as Error).message}`,
        cause: error,
      });
    }
  }
  if (context.json) return context.printer.line(JSON.stringify(report, null, 2));
  const head = report.points.at(-1);
  const { printer } = context;
  printer.line(
    `thread ${threadId}: ${head?.turn ?? 0} turns, ${report.compactions.length} compaction(s); head ${number(head?.tokens)} tokens, limit ${number(report.limit)}`,
  );
  for (const [index, compaction] of report.compactions.entries()) {
    printer.line(
      `  compaction ${index + 1} after turn ${compaction.turn}: ${number(compaction.tokensBefore)} → ${number(compaction.tokensAfter)} tokens, ${compaction.removed.length} messages out, ${number(compaction.rewrittenTokens)} tokens of prompt cache rewritten${compaction.superseded ? " (superseded)" : ""}`,
    );
  }
  if (report.cacheShare !== undefined) {
    printer.line(
      `prompt cache: ${(report.cacheShare * 100).toFixed(1)}% of the turns' tokens were a prefix of the turn before (what a provider's cache serves; each turn's \`cached\` in --json)`,
    );
  }
  const summaries = report.transcript.filter((line) => line.where === "summary").length;
  printer.line(
    `transcript: ${number(report.transcript.length - summaries)} messages (${number(report.storage.indexEntries)} compacted, in the recall index)${andSummaries(summaries)}`,
  );
  const { storage } = report;
  printer.line(
    `storage: ${checkpointsInWords(storage, number)}${"checkpointBytes" in storage ? `, ${number(storage.checkpointBytes)} bytes of checkpoints, ${number(storage.writeBytes)} of pending writes` : ""}`,
  );
  if (html !== undefined) printer.line(`page written: ${resolve(html)}`);
}
