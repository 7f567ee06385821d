/**
 * The summary as an append-only log (`summaryLog: "append"`): each compaction appends one segment, written from the
 * span it summarized alone, and leaves every earlier segment byte for byte. The prompt prefix up to the new segment
 * then stays in the provider's cache, and a line selected once stays until its segment is condensed. Past the
 * summary's budget, a reflection condenses every segment but the newest into one (OLDER_SHARE): the log is rewritten
 * then, and only then, so a rewrite comes about every other compaction instead of at each. A reflection
 * that cannot bring the log under its budget retires the oldest segments whole: their messages are in the
 * transcript, where recall finds them, and one catalog line at the start of the log says how many messages that is.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { FLOOR_SUMMARY_TOKENS } from "./plan.js";
import { getSummaryProvenance, summaryText, type SummarySegment } from "../messages/summary-message.js";
import { withoutLastRequest } from "../summarizers/anchored.js";

/** A new segment's share of the summary's budget, once the log's older part is full. */
export const SEGMENT_SHARE = 1 / 8;
/**
 * The share of the summary's budget the log's older part may fill: the first segments fill it, and a reflection
 * condenses the older segments back into it. The segments after it take the rest, so a reflection comes about every
 * other compaction.
 */
export const OLDER_SHARE = 3 / 4;

const SEPARATOR = "\n\n";

/** The budget of a new segment, from the whole summary's and what the log holds already (`used` tokens). */
export function segmentBudget(summaryBudget: number, used: number): number {
  const floor = Math.min(FLOOR_SUMMARY_TOKENS, summaryBudget);
  return Math.max(floor, Math.floor(summaryBudget * SEGMENT_SHARE), Math.floor(summaryBudget * OLDER_SHARE) - used);
}

interface Log {
  texts: string[];
  segments: SummarySegment[];
  retiredMessages: number;
  condensations: number;
}

/**
 * The log `summary` holds: its segments, or its whole text as the first one when a running summary wrote it (a
 * thread compacted before the log, or by `"rewrite"`), less the last request an LLM summary anchors.
 */
export function logOf(summary: BaseMessage | undefined): Log {
  if (!summary) return { texts: [], segments: [], retiredMessages: 0, condensations: 0 };
  const provenance = getSummaryProvenance(summary);
  const text = summaryText(summary);
  const texts: string[] = [];
  let end = text.length;
  for (const segment of [...(provenance?.segments ?? [])].reverse()) {
    const start = end - segment.chars;
    if (start < 0 || (start > 0 && text.slice(start - SEPARATOR.length, start) !== SEPARATOR)) break;
    texts.unshift(text.slice(start, end));
    end = start - SEPARATOR.length;
  }
  if (provenance?.segments && texts.length === provenance.segments.length)
    return {
      texts,
      segments: [...provenance.segments],
      retiredMessages: provenance.retiredMessages ?? 0,
      condensations: provenance.condensations ?? 0,
    };
  // A running summary's last request would stay in the log, stale, until a reflection: the first segment drops it.
  const first = withoutLastRequest(text);
  const whole: SummarySegment = {
    chars: first.length,
    messages: provenance?.coveredMessages ?? 0,
    firstCoveredId: provenance?.firstCoveredId ?? null,
    lastCoveredId: provenance?.lastCoveredId ?? null,
  };
  return { texts: [first], segments: [whole], retiredMessages: 0, condensations: 0 };
}

/**
 * The log as the summary message's text blocks: the catalog line and the first segment, then each later segment
 * after its separator. Joined, they are the summary's text; an appended segment adds a block and leaves the blocks
 * before it as they were, so a provider's cache that matches at block boundaries serves them (engine/prompt-cache.ts).
 */
function render({ texts, retiredMessages }: Log): string[] {
  const catalog =
    retiredMessages > 0
      ? `(The summaries of ${retiredMessages} earlier messages retired from this log; the transcript keeps those messages word for word.)${SEPARATOR}`
      : "";
  return texts.map((text, index) => (index === 0 ? `${catalog}${text}` : `${SEPARATOR}${text}`));
}

/** The text of the log `summary` holds, as its next segment reads it: what `logOf` makes of it, rendered. */
export function logText(summary: BaseMessage | undefined): string {
  return render(logOf(summary)).join("");
}

/**
 * Rewrites `texts`, the segments covering `messages` messages, as one text within `budget` tokens; undefined when
 * the reflection failed (the caller says why): the log then retires its oldest segments instead, and the new segment
 * lands all the same.
 */
export type Condense = (texts: readonly string[], messages: number, budget: number) => Promise<string | undefined>;

/**
 * `previous`'s log with `text` appended as the segment of `span`, as the summary's text blocks. While the whole is over `budget` tokens (`count`),
 * every segment but the new one is condensed into one (`condense`), then the oldest retire; the new one always stays.
 */
export async function appendSegment(
  previous: BaseMessage | undefined,
  text: string,
  span: Omit<SummarySegment, "chars">,
  budget: number,
  count: (text: string) => number,
  condense: Condense,
): Promise<{ blocks: string[]; segments: SummarySegment[]; retiredMessages: number; condensations: number }> {
  const log = logOf(previous);
  log.texts.push(text);
  log.segments.push({ chars: text.length, ...span });
  let rendered = render(log);
  const over = () => count(rendered.join("")) > budget;
  if (log.texts.length > 1 && over()) {
    const older = log.segments.slice(0, -1);
    const messages = older.reduce((total, segment) => total + segment.messages, 0);
    const reflection = await condense(log.texts.slice(0, -1), messages, Math.floor(budget * OLDER_SHARE));
    if (reflection !== undefined) {
      log.texts.splice(0, older.length, reflection);
      log.segments.splice(0, older.length, {
        chars: reflection.length,
        messages,
        firstCoveredId: older[0]!.firstCoveredId,
        lastCoveredId: older.at(-1)!.lastCoveredId,
      });
      rendered = render(log);
      log.condensations++;
    }
  }
  while (log.texts.length > 1 && over()) {
    log.texts.shift();
    log.retiredMessages += log.segments.shift()!.messages;
    rendered = render(log);
  }
  const { segments, retiredMessages, condensations } = log;
  return { blocks: rendered, segments, retiredMessages, condensations };
}
