/**
 * The summary message: a normal chat message whose `additional_kwargs.compaction` carries its provenance.
 * Chat providers never receive it: LangChain's OpenAI converter sends only `content`, `name`, tool calls and
 * `function_call` / `audio` from `additional_kwargs` (a test checks the request bytes against a local server).
 */

import { AIMessage, BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { randomUUID } from "node:crypto";
import { PROVENANCE_KEY, SUMMARY_MARKER, provenanceOf, type SummaryProvenance } from "./provenance.js";

export { PROVENANCE_KEY, type SummaryProvenance } from "./provenance.js";

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

export function createSummaryMessage(
  text: string,
  provenance: Omit<SummaryProvenance, "marker" | "createdAt"> & { createdAt?: string },
  role: SummaryRole = DEFAULT_SUMMARY_ROLE,
  { searchable = false }: { searchable?: boolean } = {},
): BaseMessage {
  const fields = {
    id: `summary-${randomUUID()}`,
    content: `${searchable ? SEARCHABLE_SUMMARY_HEADER : SUMMARY_HEADER}\n${text}`,
    additional_kwargs: {
      [PROVENANCE_KEY]: { marker: SUMMARY_MARKER, createdAt: new Date().toISOString(), ...provenance },
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
  for (const header of [SEARCHABLE_SUMMARY_HEADER, SUMMARY_HEADER]) {
    if (text.startsWith(header)) return text.slice(header.length).replace(/^\n/, "");
  }
  return text;
}
