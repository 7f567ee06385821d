import { CompactionError } from "../../errors.js";
import { numberArgument } from "../../options/check.js";

import { SEARCH_LIMIT } from "../../store/recall-index/query.js";
import { searchHistory } from "../../recall/search.js";
import { resolveRecallFilter } from "../../store/recall-index/filter.js";
import { searchLines } from "../search-output.js";
import { requireThread, type CliContext } from "../context.js";

export const SEARCH_HELP = `search <thread> <words…> — search the messages compaction took out of the thread's head (the recall
index), best first, each with the messages around it and the checkpoint that still holds it. The words are
searched as words: quotes, *, : or SQL in them are never query syntax.

Usage: npx compact-thread search <thread> <words…> (--db <file> | --postgres <url>) [--hits N] [--speaker S]
       [--from DAY] [--to DAY] [--json]

Options:
  --hits N        hits to return, 1 to 100 (default 5)
  --speaker S     only what S said: a name as the messages show it, or user / assistant / tool (any case)
  --from DAY      only messages on or after DAY (YYYY-MM-DD or an ISO date-time); undated messages are left out
  --to DAY        only messages on or before DAY (to its end)
  --language L    Postgres text search configuration of threads indexed without one (default simple)

Examples:
  npx compact-thread search support-42 refund cap for Lisbon --db data/app.sqlite
  npx compact-thread search support-42 "who owns billing?" --postgres "$POSTGRES_URL" --json
  npx compact-thread search support-42 refund --speaker coder --from 2026-03-01 --to 2026-03-31 --db data/app.sqlite`;

export async function searchCommand(context: CliContext, threadId: string | undefined, words: string[]): Promise<void> {
  await requireThread(context, threadId);
  const query = words.join(" ");
  if (query.trim() === "")
    throw new CompactionError({
      code: "INVALID_ARGUMENT",
      parameter: "query",
      value: query,
      message: "search needs words to look for after the thread id",
    });
  const raw = context.options.hits;
  const limit = raw === undefined ? undefined : numberArgument("--hits", raw, SEARCH_LIMIT);
  const filters = { speaker: context.options.speaker, from: context.options.from, to: context.options.to };
  // Checked here so that its errors name the flags (--from), not searchHistory's options (from).
  resolveRecallFilter(filters, { speaker: "--speaker", from: "--from", to: "--to" });
  const hits = await searchHistory(context.store.saver, { configurable: { thread_id: threadId } }, query, {
    ...filters,
    ...(limit !== undefined ? { limit } : {}),
    ...(context.options.language ? { language: context.options.language } : {}),
  });
  if (context.json) return context.printer.line(JSON.stringify({ threadId, query, hits }, null, 2));
  if (hits.length === 0 && (filters.from || filters.to)) {
    // Say why a date range found nothing when the messages it would match carry no date (other words would not help).
    const undated = await searchHistory(context.store.saver, { configurable: { thread_id: threadId } }, query, {
      speaker: filters.speaker,
      ...(context.options.language ? { language: context.options.language } : {}),
    });
    if (undated.length > 0 && undated.every((hit) => !hit.date)) {
      return context.printer.line(
        `No compacted message matches ${JSON.stringify(query)} in that date range: the messages that match carry no date (${undated.length} match without --from/--to), so a date range leaves them out.`,
      );
    }
  }
  for (const line of searchLines(hits, query)) context.printer.line(line);
}
