/**
 * The text of a message: its string content, or its text parts joined by line breaks, other parts named in
 * brackets ("[image_url]").
 */
import type { BaseMessage } from "@langchain/core/messages";

export function contentText(message: BaseMessage): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .map((part) => (typeof part === "string" ? part : part.type === "text" && typeof part.text === "string" ? part.text : `[${part.type}]`))
    .join("\n");
}
