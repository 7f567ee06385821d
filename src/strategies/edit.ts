/**
 * Edited messages: a strategy that clears or clips a message replaces it by a new message with the same id, type,
 * name and tool call id (so pairing holds and the messages reducer replaces, never appends), and records what it did
 * (messages/markers.ts). The original stays in the checkpoint history.
 */
import { BaseMessage, ToolMessage } from "@langchain/core/messages";
import { EDIT_KEY, type EditRecord } from "../messages/markers.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import { contentText } from "../messages/content.js";

export { EDIT_KEY, editOf, type EditRecord } from "../messages/markers.js";

/** A copy of a tool message with new content and the edit recorded. */
export function editToolMessage(original: ToolMessage, content: string, record: EditRecord): ToolMessage {
  return new ToolMessage({
    id: original.id,
    tool_call_id: original.tool_call_id,
    name: original.name,
    status: original.status,
    content,
    additional_kwargs: { ...original.additional_kwargs, [EDIT_KEY]: record },
    response_metadata: original.response_metadata,
  });
}

export function measure(
  message: BaseMessage,
  counter: TokenCounter,
): { tokens: number; lines: number; chars: number; text: string } {
  const text = contentText(message);
  return {
    tokens: counter.countText(text),
    lines: text === "" ? 0 : text.split("\n").length,
    chars: text.length,
    text,
  };
}

/** Head and tail excerpts of `text`, with the middle elided and counted. */
export function excerpt(text: string, head: number, tail: number): string {
  if (text.length <= head + tail) return text;
  const omitted = text.slice(head, text.length - tail);
  const lines = omitted.split("\n").length - 1;
  return `${text.slice(0, head)}\n[… ${omitted.length} characters${lines > 0 ? `, ${lines} lines` : ""} omitted …]\n${text.slice(text.length - tail)}`;
}
