import { getSummaryProvenance, isSummaryMessage, summaryText } from "../../messages/summary-message.js";
import { speaker } from "../../summarizers/render.js";
import { contentText } from "../../messages/content.js";
import { managerOf, requireThread, type CliContext } from "../context.js";
import { limitNote, threadContext } from "../thread-limit.js";
import { compactVerdict } from "../verdict.js";
import { bar, number, paint, preview, table } from "../format.js";

export const INSPECT_HELP = `inspect <thread> — the head's messages (role, agent, tokens, preview), the total against a limit (the provider's
count where the last reply carries usage figures, else the tokenizer's: it says which), the current summary if any,
and whether compact would compact it now (over the limit, idle, something to summarize)

Usage: npx compact-thread inspect <thread> (--db <file> | --postgres <url>) [--limit N] [--model M] [--json]

Options:
  --limit N       the token limit, as compact uses it (TOKEN_LIMIT, else the one the thread's last compaction
                  recorded, else 4000, which is said to be the script's; a value <= 1 is a fraction of the model's
                  window): the thread is shown against it, and compact compacts a thread over it

Examples:
  npx compact-thread inspect demo-20261121-101500 --db data/demo.sqlite
  npx compact-thread inspect support-42 --postgres "$POSTGRES_URL" --limit 32000 --json`;

export async function inspectCommand(given: CliContext, threadId: string | undefined): Promise<void> {
  const head = await requireThread(given, threadId);
  // The thread's own limit when its last compaction recorded one and none was given.
  const context = threadContext(given, head);
  const each = context.counter.countEach(head.messages);
  // "compactable" is compact's own answer (a dry run's): the same count, plan and, offline, summary.
  const verdict = await compactVerdict(context, managerOf(context), threadId!, head, { summarize: false });
  const { tokens: total, compactable, reason } = verdict;
  const under = !verdict.over;
  const counted = verdict.calibrated ? "provider" : "tokenizer";
  const summary = head.messages.find((message) => isSummaryMessage(message));
  const result = {
    threadId,
    checkpointId: head.tuple.checkpoint.id,
    messages: head.messages.map((message, index) => ({
      index,
      role: message.getType(),
      agent: message.name ?? null,
      id: message.id ?? null,
      tokens: each[index],
      summary: isSummaryMessage(message),
      preview: preview(contentText(message), 80),
    })),
    tokens: total,
    counted,
    limit: context.limit,
    limitSource: context.limitSource,
    overLimit: !under,
    summary: summary ? { text: summaryText(summary), provenance: getSummaryProvenance(summary) } : null,
    compactable,
    reason,
  };
  if (context.json) return context.printer.line(JSON.stringify(result, null, 2));
  const { printer } = context;
  printer.line(`${paint(printer, 1, `thread ${threadId}`)}  head ${head.tuple.checkpoint.id}`);
  for (const line of table(
    head.messages.map((message, index) => ({
      "#": index,
      role: isSummaryMessage(message) ? "summary" : speaker(message).split(" ")[0]!,
      agent: message.name ?? "",
      tokens: number(each[index]),
      preview: preview(contentText(message), 70),
    })),
  )) {
    printer.line(line);
  }
  printer.line();
  printer.line(
    `total ${number(total)} tokens (${counted === "provider" ? "the provider's count" : "the tokenizer's count"})  ${bar(total, Math.max(total, context.limit))}  limit ${number(context.limit)} (${limitNote(context)})${under ? "" : paint(printer, 31, "  (over the limit)")}`,
  );
  if (summary) {
    const provenance = getSummaryProvenance(summary)!;
    const { segments, condensations = 0, retiredMessages = 0 } = provenance;
    // A log (summaryLog: "append"): its segments, and what reflections and retirements did to it.
    const log = segments
      ? `; a log of ${segments.length} segment(s)${condensations > 0 ? `, condensed ${condensations} time(s)` : ""}${retiredMessages > 0 ? `, ${number(retiredMessages)} messages retired to the transcript` : ""}`
      : "";
    printer.line(
      `summary: covers ${number(provenance.coveredMessages)} messages (${number(provenance.coveredTokens)} tokens), replaced checkpoint ${provenance.replacedCheckpointId}${log}`,
    );
  } else {
    printer.line("summary: none yet");
  }
  printer.line(`compactable: ${compactable ? paint(printer, 32, "yes") : paint(printer, 33, "no")} — ${reason}`);
}
