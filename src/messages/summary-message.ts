/**
 * The summary message: a normal chat message whose `additional_kwargs.compaction` carries its provenance.
 * Chat providers never receive it: LangChain's OpenAI converter sends only `content`, `name`, tool calls and
 * `function_call` / `audio` from `additional_kwargs` (a test checks the request bytes against a local server).
 */

import { AIMessage, BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { randomUUID } from "node:crypto";
import { PROVENANCE_KEY, SUMMARY_MARKER, provenanceOf, type SummaryProvenance } from "./provenance.js";

export { PROVENANCE_KEY, type SummaryProvenance, type SummarySegment } from "./provenance.js";

/**
 * The role of the summary message. `"human"` (the default) is accepted by every chat model: Anthropic rejects a
 * system message that is not first, and a leading AI message breaks strict user/assistant alternation.
 */
export type SummaryRole = "human" | "system" | "ai";
export const DEFAULT_SUMMARY_ROLE: SummaryRole = "human";

export const SUMMARY_HEADER = "Summary of the earlier conversation (older messages were compacted):";
/** The header when the thread's compacted messages are searchable (the recall index, the search_history tool). */
export const SEARCHABLE_SUMMARY_HEADER =
  "Summary of the earlier conversation (older messages were compacted; the search_history tool finds any of them word for word):";

/** The note after a prefix of the application's own when the compacted messages are searchable. */
const SEARCHABLE_NOTE = "(Older messages were compacted; the search_history tool finds any of them word for word.)";

/**
 * The summary message's first line(s): the library's header, or a prefix of the application's own (langchain's
 * `summaryPrefix`) followed, when the compacted messages are searchable, by the note saying so.
 */
export function summaryHeader(searchable: boolean, prefix?: string): string {
  if (prefix === undefined) return searchable ? SEARCHABLE_SUMMARY_HEADER : SUMMARY_HEADER;
  return searchable ? `${prefix}\n${SEARCHABLE_NOTE}` : prefix;
}

/**
 * `text`: the summary, or the summary log's text blocks (engine/summary-log.ts), sent as the content's text parts
 * with the header at the start of the first.
 */
export function createSummaryMessage(
  text: string | readonly string[],
  provenance: Omit<SummaryProvenance, "marker" | "createdAt"> & { createdAt?: string },
  role: SummaryRole = DEFAULT_SUMMARY_ROLE,
  { searchable = false, prefix }: { searchable?: boolean; prefix?: string } = {},
): BaseMessage {
  const header = summaryHeader(searchable, prefix);
  const fields = {
    id: `summary-${randomUUID()}`,
    content:
      typeof text === "string"
        ? `${header}\n${text}`
        : text.map((part, index) => ({ type: "text" as const, text: index === 0 ? `${header}\n${part}` : part })),
    additional_kwargs: {
      [PROVENANCE_KEY]: {
        marker: SUMMARY_MARKER,
        createdAt: new Date().toISOString(),
        ...provenance,
        ...(prefix === undefined ? {} : { prefix: header }),
      },
      // As langchain's summarization marks its summary message: tools that recognise those recognise these.
      lc_source: "summarization",
    },
  };
  if (role === "system") return new SystemMessage(fields);
  if (role === "ai") return new AIMessage(fields);
  return new HumanMessage(fields);
}

/** True when `message` is a summary written by this library. */
export function isSummaryMessage(message: unknown): boolean {
  return getSummaryProvenance(message) !== undefined;
}

/** The provenance of a summary message, or `undefined` for any other message. */
export function getSummaryProvenance(message: unknown): SummaryProvenance | undefined {
  return BaseMessage.isInstance(message) ? provenanceOf(message) : undefined;
}

/** The summary text without the header line. */
export function summaryText(message: BaseMessage): string {
  const text = typeof message.content === "string" ? message.content : message.text;
  const prefix = getSummaryProvenance(message)?.prefix;
  for (const header of [...(prefix === undefined ? [] : [prefix]), SEARCHABLE_SUMMARY_HEADER, SUMMARY_HEADER]) {
    if (text.startsWith(header)) return text.slice(header.length).replace(/^\n/, "");
  }
  return text;
}
