/**
 * The date a message was written. LangChain messages have no date field of their own; applications that keep one
 * put it in the message's metadata, which chat providers never receive. This library reads, in order:
 * `additional_kwargs.timestamp`, `additional_kwargs.created_at`, `additional_kwargs.createdAt`,
 * `response_metadata.timestamp`, `response_metadata.created_at`, `response_metadata.created` — each an ISO 8601
 * string, a `Date`, or a number of milliseconds (or, below 10^11, seconds, as OpenAI's `created`) since the epoch.
 */
import type { BaseMessage } from "@langchain/core/messages";

const KWARG_KEYS = ["timestamp", "created_at", "createdAt"] as const;
const RESPONSE_KEYS = ["timestamp", "created_at", "created"] as const;
/** Numbers below this are seconds since the epoch (10^11 ms is March 1973; 10^11 s is the year 5138). */
const SECONDS_BELOW = 1e11;

function toDate(value: unknown): Date | undefined {
  let date: Date | undefined;
  if (value instanceof Date) date = value;
  else if (typeof value === "number" && Number.isFinite(value) && value > 0)
    date = new Date(value < SECONDS_BELOW ? value * 1000 : value);
  else if (typeof value === "string" && value.trim() !== "") date = new Date(value);
  return date && !Number.isNaN(date.getTime()) ? date : undefined;
}

/** The message's date from its metadata (see the module comment), or undefined. */
export function messageDate(message: BaseMessage): Date | undefined {
  const kwargs = (message.additional_kwargs ?? {}) as Record<string, unknown>;
  for (const key of KWARG_KEYS) {
    const date = toDate(kwargs[key]);
    if (date) return date;
  }
  const response = (message.response_metadata ?? {}) as Record<string, unknown>;
  for (const key of RESPONSE_KEYS) {
    const date = toDate(response[key]);
    if (date) return date;
  }
  return undefined;
}

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

/** The calendar day of `date` (UTC) as "8 May 2023": unambiguous whatever the reader's locale, and each month name is one token. */
export function formatDay(date: Date): string {
  return `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
}
