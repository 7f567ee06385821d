import { requireThread, type CliContext } from "../context.js";
import { timelineOf } from "../timeline.js";
import { bar, number, table } from "../format.js";

export const HISTORY_HELP = `history <thread> — the thread's checkpoints, oldest first (id, step, source, messages, tokens), with
compactions and restores marked, so the saw-tooth of a compacted thread is visible; a write superseded by a turn
that had read the thread before it is marked "superseded" (nothing is lost: the turn's head holds what it replaced).
One row per turn (the checkpoint each turn ended on) and per write of this library; --every-checkpoint shows the
steps inside turns too. --json always lists every checkpoint, with "turnEnd" marking the rows shown by default.

Usage: npx compact-thread history <thread> (--db <file> | --postgres <url>) [--every-checkpoint] [--json]

Examples:
  npx compact-thread history demo-20261121-101500 --db data/demo.sqlite
  npx compact-thread history support-42 --postgres "$POSTGRES_URL" --json`;

export async function historyCommand(context: CliContext, threadId: string | undefined): Promise<void> {
  await requireThread(context, threadId);
  const { rows } = await timelineOf(context.store.threads, threadId!, context.counter);
  const checkpoints = rows;
  const superseded = rows.filter((row) => row.superseded);
  if (context.json) return context.printer.line(JSON.stringify({ threadId, checkpoints: rows }, null, 2));
  const every = Boolean(context.options["every-checkpoint"]);
  const shown = rows.filter((row) => every || row.turnEnd || row.compaction || row.restore || row.superseded);
  const max = Math.max(1, ...checkpoints.map((checkpoint) => checkpoint.tokens));
  for (const line of table(
    shown.map((checkpoint) => ({
      checkpoint: checkpoint.checkpointId,
      step: checkpoint.step,
      source: checkpoint.source,
      messages: number(checkpoint.messages),
      tokens: number(checkpoint.tokens),
      "": bar(checkpoint.tokens, max, 24),
      event: `${checkpoint.compaction ? "◀ compaction" : checkpoint.restore ? "◀ restore" : checkpoint.superseded ? "◀ write of this library" : ""}${checkpoint.superseded ? ", superseded (not in the head's line)" : ""}`,
    })),
  )) {
    context.printer.line(line);
  }
  const compactions = checkpoints.filter((checkpoint) => checkpoint.compaction).length;
  const lines = superseded.length === 0 ? "" : `; ${superseded.length} write(s) of this library superseded by a turn that had read the thread before them (nothing lost; see docs/limitations.md)`;
  const hidden = checkpoints.length - shown.length;
  context.printer.line(`${checkpoints.length} checkpoints, ${compactions} compaction(s)${lines}${hidden > 0 ? `; ${hidden} step(s) inside turns not shown (--every-checkpoint)` : ""}`);
}
