/**
 * Which messages a search may return: said by one speaker, dated within a range. One rule, three spellings: this
 * predicate (the in-process and BaseStore indexes), and the same conditions in SQL beside the full-text match in
 * SQLite and Postgres, so a filter narrows the ranking itself, never a page of it.
 *
 * - The speaker is who said it as a hit shows it: the message's name ("Melanie", "coder"), else its role ("user",
 *   "assistant", "tool"); compared without case.
 * - `from` and `to` are days ("2023-06-01") or instants (ISO 8601), both inclusive; a day as `to` runs to its end.
 *   A message without a date is outside every date range (nothing says when it was said).
 */
import { argument } from "../../options/check.js";
import { never, text } from "../../options/rules.js";
import type { RecallMessage } from "./types.js";

/** A resolved filter: the speaker lower-cased, the range as ISO instants (what the index stores). */
export interface RecallFilter {
  speaker?: string;
  from?: string;
  to?: string;
}

/** The filter options of a search, as callers give them. */
export interface RecallFilterOptions {
  /** Only messages said by this speaker: a message's name, else its role ("user", "assistant", "tool"); any case. */
  speaker?: string;
  /** Only messages dated on or after this day ("2023-06-01") or instant. Undated messages are left out. */
  from?: string | Date;
  /** Only messages dated on or before this day (to its end) or instant. Undated messages are left out. */
  to?: string | Date;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** How errors name the options ("--from" for the script); each defaults to its own name. */
export type RecallFilterNames = Partial<Record<keyof RecallFilterOptions, string>>;

/** A speaker's name or role as every filter compares it (the SQL indexes too, through `speakersMatching`). */
function fold(speaker: string): string {
  return speaker.toLowerCase();
}

function instant(parameter: "from" | "to", value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  const date =
    value instanceof Date
      ? value
      : typeof value === "string" && value.trim() !== ""
        ? new Date(DAY.test(value.trim()) ? `${value.trim()}T00:00:00.000Z` : value.trim())
        : undefined;
  if (!date || Number.isNaN(date.getTime()))
    return argument(name, value, never('a day ("2023-06-01"), an ISO 8601 date-time or a Date'));
  // A day as the end of a range includes that whole day.
  if (parameter === "to" && typeof value === "string" && DAY.test(value.trim()))
    return new Date(date.getTime() + 86_400_000 - 1).toISOString();
  return date.toISOString();
}

/**
 * The filter of `options`, or undefined when it filters nothing. `names`: how errors name the options.
 * @throws CompactionError INVALID_ARGUMENT naming `speaker`, `from` or `to`, or a range that ends before it starts.
 */
export function resolveRecallFilter(
  { speaker, from, to }: RecallFilterOptions,
  names: RecallFilterNames = {},
): RecallFilter | undefined {
  const name = (key: keyof RecallFilterOptions) => names[key] ?? key;
  argument(name("speaker"), speaker, text('a speaker\'s name or a role, such as "Melanie" or "user"').optional());
  const start = instant("from", from, name("from"));
  const end = instant("to", to, name("to"));
  if (start !== undefined && end !== undefined && start > end) {
    const shown = JSON.stringify(from instanceof Date ? from.toISOString() : from);
    argument(name("to"), to, never(`a date on or after ${name("from")} (${shown})`));
  }
  const filter: RecallFilter = {
    ...(speaker !== undefined ? { speaker: fold(speaker.trim()) } : {}),
    ...(start !== undefined ? { from: start } : {}),
    ...(end !== undefined ? { to: end } : {}),
  };
  return Object.keys(filter).length === 0 ? undefined : filter;
}

/** Who said a message, as a filter compares it: its name, else its role, lower-cased. */
export function speakerOf(message: Pick<RecallMessage, "name" | "role">): string {
  return fold(message.name || message.role);
}

/** Whether `message` passes `filter` (no filter: every message). */
export function passesFilter(
  message: Pick<RecallMessage, "name" | "role" | "date">,
  filter: RecallFilter | undefined,
): boolean {
  if (!filter) return true;
  if (filter.speaker !== undefined && speakerOf(message) !== filter.speaker) return false;
  if (filter.from === undefined && filter.to === undefined) return true;
  // An unreadable date says no more than none.
  const time = message.date ? Date.parse(message.date) : Number.NaN;
  if (Number.isNaN(time)) return false;
  const date = new Date(time).toISOString();
  return (filter.from === undefined || date >= filter.from) && (filter.to === undefined || date <= filter.to);
}

/**
 * Of the spellings of who said the thread's messages (each a name, else a role), those `filter.speaker` matches: the
 * SQL indexes read the thread's distinct spellings and match these exactly, so the comparison is this module's, not
 * the database's idea of case.
 */
export function speakersMatching(spellings: readonly string[], filter: RecallFilter): string[] {
  return spellings.filter((spelling) => fold(spelling) === filter.speaker);
}
