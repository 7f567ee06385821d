import { requireThread, type CliContext } from "../context.js";
import { bar, number, table } from "../format.js";

export const HISTORY_HELP = `history <thread> — the thread's checkpoints, oldest first (id, step, source, messages, tokens), with
compactions and restores marked, so the saw-tooth of a compacted thread is visible

Usage: compact-thread history <thread> (--db <file> | --postgres <url>) [--json]

Examples:
  npx compact-thread history demo-20261121-101500 --db data/demo.sqlite
  npx compact-thread history support-42 --postgres "$POSTGRES_URL" --json`;

export async function historyCommand(context: CliContext, threadId: string | undefined): Promise<void> {
  await requireThread(context, threadId);
  const checkpoints = [];
  for (const { tuple, messages } of await context.store.threads.listCheckpoints(threadId!)) {
    const metadata = (tuple.metadata ?? {}) as Record<string, unknown>;
    checkpoints.push({
      checkpointId: tuple.checkpoint.id,
      parentId: (tuple.parentConfig?.configurable?.checkpoint_id as string | undefined) ?? null,
      step: metadata.step as number,
      source: metadata.source as string,
      messages: messages.length,
      tokens: context.counter.countMessages(messages),
      compaction: (metadata.compaction as Record<string, unknown> | undefined) ?? null,
      restore: (metadata.restore as Record<string, unknown> | undefined) ?? null,
      ts: tuple.checkpoint.ts,
    });
  }
  checkpoints.reverse();
  if (context.json) return context.printer.line(JSON.stringify({ threadId, checkpoints }, null, 2));
  const max = Math.max(1, ...checkpoints.map((checkpoint) => checkpoint.tokens));
  for (const line of table(
    checkpoints.map((checkpoint) => ({
      checkpoint: checkpoint.checkpointId,
      step: checkpoint.step,
      source: checkpoint.source,
      messages: number(checkpoint.messages),
      tokens: number(checkpoint.tokens),
      "": bar(checkpoint.tokens, max, 24),
      event: checkpoint.compaction ? "◀ compaction" : checkpoint.restore ? "◀ restore" : "",
    })),
  )) {
    context.printer.line(line);
  }
  const compactions = checkpoints.filter((checkpoint) => checkpoint.compaction).length;
  context.printer.line(`${checkpoints.length} checkpoints, ${compactions} compaction(s)`);
}
