/**
 * The summary message: a normal chat message whose `additional_kwargs.compaction` carries its provenance.
 * Chat providers never receive it: LangChain's OpenAI converter sends only `content`, `name`, tool calls and
 * `function_call` / `audio` from `additional_kwargs` (a test checks the request bytes against a local server).
 */

import { AIMessage, BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { randomUUID } from "node:crypto";

export const PROVENANCE_KEY = "compaction";
const SUMMARY_MARKER = "langgraph-compaction/summary";

/**
 * The role of the summary message. `"human"` (the default) is accepted by every chat model: Anthropic rejects a
 * system message that is not first, and a leading AI message breaks strict user/assistant alternation.
 */
export type SummaryRole = "human" | "system" | "ai";
export const DEFAULT_SUMMARY_ROLE: SummaryRole = "human";

export interface SummaryProvenance {
  marker: typeof SUMMARY_MARKER;
  /** The checkpoint whose history this summary replaced; fork from it to see every covered message. */
  replacedCheckpointId: string | null;
  /** Messages covered, including those covered by a previous summary folded into this one. */
  coveredMessages: number;
  /** Tokens of the covered messages (as counted when they were summarized). */
  coveredTokens: number;
  firstCoveredId: string | null;
  lastCoveredId: string | null;
  /** Ids of the messages summarized directly by this summary (not those of a folded previous summary). */
  coveredIds: string[];
  /** The previous summary folded into this one, if any. */
  previousSummaryId: string | null;
  summarizer: string;
  model: string | null;
  /** Set when the configured summarizer failed and the fallback wrote this summary. */
  fallbackReason?: string;
  /**
   * Set when pinned messages from before the cut follow this summary in the head: their ids, the first message kept
   * after them, and the message that one followed in the conversation, the last before the cut (the transcript's
   * order: in the head, it follows a pin).
   */
  pins?: { ids: string[]; keptId: string; followedId: string };
  createdAt: string;
}

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
  if (!BaseMessage.isInstance(message)) return undefined;
  const provenance = (message.additional_kwargs as Record<string, unknown> | undefined)?.[PROVENANCE_KEY];
  if (typeof provenance !== "object" || provenance === null) return undefined;
  return (provenance as SummaryProvenance).marker === SUMMARY_MARKER ? (provenance as SummaryProvenance) : undefined;
}

/** The summary text without the header line. */
export function summaryText(message: BaseMessage): string {
  const text = typeof message.content === "string" ? message.content : message.text;
  for (const header of [SEARCHABLE_SUMMARY_HEADER, SUMMARY_HEADER]) {
    if (text.startsWith(header)) return text.slice(header.length).replace(/^\n/, "");
  }
  return text;
}
