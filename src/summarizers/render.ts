/**
 * Rendering messages as plain lines for summarizers: who spoke (role and agent name), tool calls, tool results.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { toolCallsOf, toolCallIdOf } from "../messages/tool-calls.js";
import { contentText } from "../messages/content.js";
import { formatDay, messageDate } from "../messages/date.js";

export function speaker(message: BaseMessage): string {
  const type = message.getType();
  const role = type === "human" ? "user" : type === "ai" ? "assistant" : type;
  if (type === "tool") return `tool ${message.name ?? ""}`.trim();
  return message.name ? `${role} ${message.name}` : role;
}

export { contentText } from "../messages/content.js";

/** One message as text: "[8 May 2023] speaker: content" (the date when known), with tool calls spelled out. */
export function renderMessage(message: BaseMessage): string {
  const calls = toolCallsOf(message)
    .map((call) => `${call.name}(${JSON.stringify((call as { args?: unknown }).args ?? {})})`)
    .join(", ");
  const text = contentText(message);
  const callId = toolCallIdOf(message);
  const date = messageDate(message);
  const head = `${date ? `[${formatDay(date)}] ` : ""}${speaker(message)}${callId ? ` [${callId}]` : ""}`;
  return `${head}: ${text}${calls ? `${text ? " " : ""}[calls ${calls}]` : ""}`;
}
