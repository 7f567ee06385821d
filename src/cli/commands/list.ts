import { argument } from "../../options/check.js";
import { oneOf } from "../../options/rules.js";
import type { CliContext } from "../context.js";
import { bar, number, table } from "../format.js";

export const LIST_HELP = `list — every thread in the store: messages, tokens, checkpoints, last update, idle or busy.
"counted" says which count "tokens" is: "provider" (the provider's figure of the last model call, from its reply's
usage metadata, and the tokenizer's count of what followed, calibrated) or "tokenizer"

Usage: npx compact-thread list (--db <file> | --postgres <url>) [--sort tokens|name|updated] [--limit N] [--json]

Options:
  --limit N       the token limit, as compact uses it (TOKEN_LIMIT, or 4000; a value <= 1 is a fraction of the
                  model's window): each thread is shown against it, and compact compacts a thread over it

Examples:
  npx compact-thread list --db data/demo.sqlite --sort tokens
  npx compact-thread list --postgres postgresql://user:pass@localhost/app --json`;

export async function listCommand(context: CliContext): Promise<void> {
  const sort = argument(
    "--sort",
    context.options.sort ?? "tokens",
    oneOf(["tokens", "name", "updated"], '"tokens", "name" or "updated"'),
  );
  const threads = [];
  for (const row of await context.store.threads.listThreads()) {
    const head = await context.store.threads.readHead(row.threadId);
    if (!head) continue;
    const measured = await context.calibration.count(head.messages);
    threads.push({
      threadId: row.threadId,
      messages: head.messages.length,
      tokens: measured.tokens,
      // Which count `tokens` is: the provider's figure of the last call plus what followed, or the tokenizer's.
      counted: measured.calibrated ? "provider" : "tokenizer",
      checkpoints: row.checkpoints,
      lastUpdate: head.tuple.checkpoint.ts,
      idle: head.busyReason === undefined,
      busyReason: head.busyReason ?? null,
    });
  }
  threads.sort((a, b) =>
    sort === "tokens"
      ? b.tokens - a.tokens
      : sort === "updated"
        ? b.lastUpdate.localeCompare(a.lastUpdate)
        : a.threadId.localeCompare(b.threadId),
  );
  if (context.json) return context.printer.line(JSON.stringify({ threads, limit: context.limit }, null, 2));
  if (threads.length === 0) return context.printer.line("No threads in this store.");
  const max = Math.max(context.limit, ...threads.map((thread) => thread.tokens));
  for (const line of table(
    threads.map((thread) => ({
      thread: thread.threadId,
      messages: number(thread.messages),
      tokens: number(thread.tokens),
      counted: thread.counted,
      [`vs limit ${number(context.limit)}`]: bar(thread.tokens, max, 20),
      checkpoints: number(thread.checkpoints),
      "last update": thread.lastUpdate.replace("T", " ").slice(0, 19),
      state: thread.idle ? "idle" : "busy",
    })),
  )) {
    context.printer.line(line);
  }
}
