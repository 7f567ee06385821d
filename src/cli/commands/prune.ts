import { pruneStoredThread } from "../../engine/prune.js";
import { DEFAULT_KEEP_CHECKPOINTS } from "../../engine/options.js";
import type { PruneReport } from "../../engine/report.js";
import { keepFlag, threadsOf, type CliContext } from "../context.js";
import { number, table } from "../format.js";

export const PRUNE_HELP = `prune <thread> | --all — delete the checkpoints the transcript makes redundant: every message they hold is
in a kept checkpoint or in the transcript (written first, in the same transaction), so nothing is lost. Kept: the
head, the newest N checkpoints, a checkpoint with an interrupt waiting, the ancestors a kept checkpoint's messages
are rebuilt from (a delta channel), and subgraph checkpoints of the kept steps. A turn landing meanwhile makes it
start again from the new head. history --transcript still shows every message; restore reaches kept checkpoints.

A SQLite file keeps its size after a prune: SQLite reuses the freed pages for its later writes. --vacuum gives them
back to the disk (VACUUM rewrites the file: it needs the file's size again in free disk, and holds the write lock
while it runs, so turns wait). Postgres reuses freed space by itself (autovacuum).

Usage: npx compact-thread prune (<thread> | --all) (--db <file> | --postgres <url>) [--keep N] [--dry-run] [--vacuum] [--json]

Options:
  --keep N        newest checkpoints kept, the head among them (default ${DEFAULT_KEEP_CHECKPOINTS}; at least 1)
  --dry-run       say what would be deleted and written; change nothing
  --vacuum        SQLite: then rewrite the file without its free pages, so it shrinks

Examples:
  npx compact-thread prune support-42 --db data/app.sqlite --dry-run
  npx compact-thread prune --all --postgres "$POSTGRES_URL" --keep 5`;

export async function pruneCommand(context: CliContext, threadId: string | undefined): Promise<void> {
  const threads = await threadsOf(context, threadId, "prune");
  const keep = keepFlag(context.options.keep) ?? DEFAULT_KEEP_CHECKPOINTS;
  const dryRun = Boolean(context.options["dry-run"]);
  const reports: PruneReport[] = [];
  for (const id of threads) reports.push(await pruneStoredThread(context.store.threads, id, keep, dryRun));
  const vacuum = Boolean(context.options.vacuum) && !dryRun;
  const before = await context.store.threads.storeFile(false);
  const file = vacuum ? await context.store.threads.storeFile(true) : before;
  const fileFigures =
    file && before
      ? { file: { bytesBefore: before.bytes, bytes: file.bytes, freeBytes: file.freeBytes, vacuumed: vacuum } }
      : {};
  if (context.json)
    return context.printer.line(JSON.stringify({ keep, dryRun, threads: reports, ...fileFigures }, null, 2));
  for (const line of table(
    reports.map((report) => ({
      thread: report.threadId,
      status: report.status,
      checkpoints: number(report.checkpointsBefore),
      kept: number(report.kept),
      [dryRun ? "would delete" : "deleted"]: number(report.removed),
      "to transcript": number(report.backfilled),
    })),
  )) {
    context.printer.line(line);
  }
  const removed = reports.reduce((sum, report) => sum + report.removed, 0);
  context.printer.line(
    `${reports.length} thread(s): ${number(removed)} checkpoint(s) ${dryRun ? "would be deleted (dry run: nothing changed)" : "deleted"}, the newest ${keep} of each kept`,
  );
  if (dryRun || !file || !before) return;
  if (vacuum) context.printer.line(`file: ${number(before.bytes)} → ${number(file.bytes)} bytes (vacuumed)`);
  else if (file.freeBytes > 0) {
    context.printer.line(
      `file: ${number(file.bytes)} bytes, ${number(file.freeBytes)} of them free pages SQLite reuses for later writes; --vacuum gives them back to the disk`,
    );
  }
}
