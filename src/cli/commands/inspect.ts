import { getSummaryProvenance, isSummaryMessage, summaryText } from "../../messages/summary-message.js";
import { isOverLimit } from "../../engine/limits.js";
import { speaker } from "../../summarizers/render.js";
import { contentText } from "../../messages/content.js";
import { managerOf, requireThread, type CliContext } from "../context.js";
import { bar, number, paint, preview, table } from "../format.js";

export const INSPECT_HELP = `inspect <thread> — the head's messages (role, agent, tokens, preview), the total against a limit (the provider's
count where the last reply carries usage figures, else the tokenizer's: it says which), the current summary if any,
and whether compact would compact it now (over the limit, idle, something to summarize)

Usage: npx compact-thread inspect <thread> (--db <file> | --postgres <url>) [--limit N] [--model M] [--json]

Options:
  --limit N       the token limit, as compact uses it (TOKEN_LIMIT, or 4000; a value <= 1 is a fraction of the
                  model's window): each thread is shown against it, and compact compacts a thread over it

Examples:
  npx compact-thread inspect demo-20261121-101500 --db data/demo.sqlite
  npx compact-thread inspect support-42 --postgres "$POSTGRES_URL" --limit 32000 --json`;

export async function inspectCommand(context: CliContext, threadId: string | undefined): Promise<void> {
  const head = await requireThread(context, threadId);
  const each = context.counter.countEach(head.messages);
  const manager = managerOf(context);
  const measured = await manager.calibration.count(head.messages);
  const total = measured.tokens;
  const counted = measured.calibrated ? "provider" : "tokenizer";
  const summary = head.messages.find((message) => isSummaryMessage(message));
  // The plan `compact` would execute: the script's policy, the wrapper's rules, the same count.
  const plan = manager.planCompaction(head.messages, { tokenRatio: measured.ratio });
  // "compactable" answers what `compact` would do: a thread at or under the limit is left alone.
  const under = !isOverLimit(context.policy, total, head.messages.length);
  const compactable = head.busyReason === undefined && !under && plan.executable;
  const reason =
    head.busyReason ??
    (under
      ? `${number(total)} tokens, not over the limit of ${number(context.limit)}: compact writes nothing`
      : plan.reason);
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
    `total ${number(total)} tokens (${counted === "provider" ? "the provider's count" : "the tokenizer's count"})  ${bar(total, Math.max(total, context.limit))}  limit ${number(context.limit)}${under ? "" : paint(printer, 31, "  (over the limit)")}`,
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
