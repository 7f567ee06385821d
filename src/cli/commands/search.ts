import { CompactionError } from "../../errors.js";
import { searchHistory } from "../../recall/search.js";
import { formatHits } from "../../recall/tool.js";
import { requireThread, type CliContext } from "../context.js";

export const SEARCH_HELP = `search <thread> <words…> — search the messages compaction took out of the thread's head (the recall
index), best first, each with the messages around it and the checkpoint that still holds it. The words are
searched as words: quotes, *, : or SQL in them are never query syntax.

Usage: compact-thread search <thread> <words…> (--db <file> | --postgres <url>) [--limit N] [--json]

Options:
  --limit N       hits to return, 1 to 100 (default 5)
  --language L    Postgres text search configuration of threads indexed without one (default simple)

Examples:
  npx compact-thread search support-42 refund cap for Lisbon --db data/app.sqlite
  npx compact-thread search support-42 "who owns billing?" --postgres "$POSTGRES_URL" --json`;

export async function searchCommand(context: CliContext, threadId: string | undefined, words: string[]): Promise<void> {
  await requireThread(context, threadId);
  const query = words.join(" ");
  if (query.trim() === "") throw new CompactionError({ code: "INVALID_ARGUMENT", parameter: "query", value: query, message: "search needs words to look for after the thread id" });
  const raw = context.options.limit;
  const limit = raw === undefined ? undefined : Number(raw);
  const hits = await searchHistory(context.store.saver, { configurable: { thread_id: threadId } }, query, {
    ...(limit !== undefined ? { limit } : {}),
    ...(context.options.language ? { language: context.options.language } : {}),
  });
  if (context.json) return context.printer.line(JSON.stringify({ threadId, query, hits }, null, 2));
  context.printer.line(formatHits(hits, Number.MAX_SAFE_INTEGER, context.counter));
  for (const [index, hit] of hits.entries()) context.printer.line(`  ${index + 1}. message ${hit.messageId} in checkpoint ${hit.checkpointId} (score ${hit.score.toFixed(2)})`);
}
