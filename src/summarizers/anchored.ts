/**
 * The structure of the LLM summarizer's running summary: fixed sections, updated in place from one compaction to
 * the next (anchored), and the user's last request kept word for word.
 *
 * The model writes every section but the last. "Last user request (verbatim)" is written by this module, from the
 * newest user message of the segment (or carried from the previous summary when the segment has none), so the one
 * line an agent most needs to resume the work is never paraphrased, shortened or invented by a model.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { contentText } from "../messages/content.js";
import { formatDay, messageDate } from "../messages/date.js";
import { isSummaryMessage } from "../messages/summary-message.js";
import { clipAtWord } from "../messages/words.js";
import { CHARS_PER_TOKEN } from "./output.js";

/** The sections a model writes, in order. */
export const MODEL_SECTIONS = [
  "What the user asked",
  "Decisions",
  "Facts and figures (dated, per participant)",
  "Open tasks",
  "Per-agent results",
  "Artifacts",
] as const;

/** The section this module writes, last. */
export const LAST_REQUEST_SECTION = "Last user request (verbatim)";

/** The longest last request kept, as a share of the summary's budget. */
export const LAST_REQUEST_BUDGET_SHARE = 0.25;

const HEADING = /^##\s+(.+?)\s*$/;

/** The summary's sections: heading → body (trimmed), in the order they appear; text before any heading under "". */
export function parseSections(text: string): Map<string, string> {
  const sections = new Map<string, string>();
  let heading = "";
  let body: string[] = [];
  const flush = () => {
    const trimmed = body.join("\n").trim();
    if (trimmed || heading) sections.set(heading, trimmed);
  };
  for (const line of text.split("\n")) {
    const match = HEADING.exec(line);
    if (!match) {
      body.push(line);
      continue;
    }
    flush();
    heading = match[1]!;
    body = [];
  }
  flush();
  return sections;
}

/**
 * The user's last request: the newest user message of `messages` (with its date when known), else the one the
 * previous summary carries; undefined when neither has one. Clipped to LAST_REQUEST_BUDGET_SHARE of the budget.
 */
export function lastUserRequest(
  previousSummary: string | undefined,
  messages: readonly BaseMessage[],
  tokenBudget: number,
): string | undefined {
  const maxChars = Math.max(80, Math.floor(tokenBudget * LAST_REQUEST_BUDGET_SHARE * CHARS_PER_TOKEN));
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.getType() !== "human" || isSummaryMessage(message)) continue;
    const text = contentText(message).trim();
    if (!text) continue;
    const date = messageDate(message);
    return clipAtWord(`${date ? `[${formatDay(date)}] ` : ""}${text}`, maxChars);
  }
  const carried = previousSummary ? parseSections(previousSummary).get(LAST_REQUEST_SECTION) : undefined;
  return carried ? clipAtWord(carried, maxChars) : undefined;
}

/**
 * The model's summary with the verbatim last request as its last section: a section of that name the model wrote
 * anyway is replaced, never kept beside it.
 */
export function anchorSummary(modelText: string, lastRequest: string | undefined): string {
  const sections = parseSections(modelText);
  if (!sections.has(LAST_REQUEST_SECTION) && lastRequest === undefined) return modelText.trim();
  const parts: string[] = [];
  for (const [heading, body] of sections) {
    if (heading === LAST_REQUEST_SECTION) continue;
    parts.push(heading ? `## ${heading}\n${body}` : body);
  }
  if (lastRequest !== undefined) parts.push(`## ${LAST_REQUEST_SECTION}\n${lastRequest}`);
  return parts.filter((part) => part.trim()).join("\n\n");
}

/**
 * `summary` without its last-request section, or as it is when it has none: what a running summary keeps when it
 * becomes the first segment of a log, where no segment carries the request (the newest user turn is a kept message).
 */
export function withoutLastRequest(summary: string): string {
  return parseSections(summary).has(LAST_REQUEST_SECTION) ? anchorSummary(summary, undefined) : summary;
}
