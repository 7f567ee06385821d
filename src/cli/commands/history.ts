import { requireThread, type CliContext } from "../context.js";
import { timelineOf } from "../timeline.js";
import { readTranscript, MAX_TRANSCRIPT_PAGE, type TranscriptMessage } from "../../recall/transcript.js";
import { isSummaryMessage } from "../../messages/summary-message.js";
import { contentText } from "../../messages/content.js";
import { speaker } from "../../summarizers/render.js";
import { andSummaries, bar, number, preview, table } from "../format.js";

export const HISTORY_HELP = `history <thread> — the thread's checkpoints, oldest first (id, step, source, messages, tokens), with
compactions and restores marked, so the saw-tooth of a compacted thread is visible; a write superseded by a turn
that had read the thread before it is marked "superseded" (nothing is lost: the turn's head holds what it replaced).
One row per turn (the checkpoint each turn ended on) and per write of this library; --every-checkpoint shows the
steps inside turns too. --json always lists every checkpoint, with "turnEnd" marking the rows shown by default.

With --transcript, the whole conversation instead: every message ever stored, in order — the ones writes of this
library took out of the head (from the transcript), then the head — each once, summaries marked.

Usage: npx compact-thread history <thread> (--db <file> | --postgres <url>) [--every-checkpoint | --transcript] [--json]

Examples:
  npx compact-thread history demo-20261121-101500 --db data/demo.sqlite
  npx compact-thread history support-42 --postgres "$POSTGRES_URL" --json`;

export async function historyCommand(context: CliContext, threadId: string | undefined): Promise<void> {
  await requireThread(context, threadId);
  if (context.options.transcript) return transcriptCommand(context, threadId!);
  const { rows: checkpoints } = await timelineOf(context.store.threads, threadId!, context.counter);
  const superseded = checkpoints.filter((row) => row.superseded);
  if (context.json) return context.printer.line(JSON.stringify({ threadId, checkpoints }, null, 2));
  const every = Boolean(context.options["every-checkpoint"]);
  const shown = checkpoints.filter((row) => every || row.turnEnd || row.compaction || row.restore || row.superseded);
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
  const lines =
    superseded.length === 0
      ? ""
      : `; ${superseded.length} write(s) of this library superseded by a turn that had read the thread before them (nothing lost; see docs/limitations.md)`;
  const hidden = checkpoints.length - shown.length;
  context.printer.line(
    `${checkpoints.length} checkpoints, ${compactions} compaction(s)${lines}${hidden > 0 ? `; ${hidden} step(s) inside turns not shown (--every-checkpoint)` : ""}`,
  );
}

async function transcriptCommand(context: CliContext, threadId: string): Promise<void> {
  const lines: TranscriptMessage[] = [];
  let after: number | undefined;
  for (;;) {
    const page = await readTranscript(
      context.store.saver,
      { configurable: { thread_id: threadId } },
      { limit: MAX_TRANSCRIPT_PAGE, ...(after === undefined ? {} : { after }) },
    );
    lines.push(...page.messages);
    if (page.next === undefined) break;
    after = page.next;
  }
  if (context.json) {
    const messages = lines.map(({ position, message, source, edited, partial }) => ({
      position,
      source,
      ...(edited ? { edited } : {}),
      ...(partial ? { partial } : {}),
      id: message.id ?? null,
      type: message.getType(),
      name: message.name ?? null,
      content: message.content,
      ...((message as { tool_calls?: unknown[] }).tool_calls?.length
        ? { toolCalls: (message as { tool_calls?: unknown[] }).tool_calls }
        : {}),
    }));
    return context.printer.line(JSON.stringify({ threadId, messages }, null, 2));
  }
  for (const line of table(
    lines.map(({ position, message, source, edited }) => ({
      "#": position,
      where:
        source === "transcript" ? "compacted" : source === "summary" ? "summary" : edited ? "head (edited)" : "head",
      who: isSummaryMessage(message) ? "summary" : speaker(message),
      text: preview(contentText(message), 90),
    })),
  )) {
    context.printer.line(line);
  }
  const compacted = lines.filter((line) => line.source === "transcript").length;
  const summaries = lines.filter((line) => line.source === "summary").length;
  const inHead = lines.length - compacted - summaries;
  context.printer.line(
    `${compacted + inHead} messages: ${compacted} compacted out of the head (in the transcript), ${inHead} in the head${andSummaries(summaries)}`,
  );
}
