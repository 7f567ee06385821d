/**
 * OpenAI's published chat accounting, applied to LangChain messages.
 *
 * Per OpenAI's cookbook ("How to count tokens with tiktoken"): every message costs 3 tokens of framing plus the
 * tokens of its role and content; a `name` costs its tokens plus 1; every reply is primed with 3 tokens. What the
 * cookbook does not publish is documented here as this library's rule:
 * - tool calls on an AI message: for each call, its name, its JSON arguments and 3 tokens of framing;
 * - tool messages: role "tool" and their content (the call id is not part of the prompt text);
 * - multimodal content: text parts counted as text; an image part costs `IMAGE_TOKENS_LOW_DETAIL` (85) with
 *   `detail: "low"` and `IMAGE_TOKENS_DEFAULT` (765, a 1024x1024 image at high detail) otherwise, since the pixel
 *   size is unknown here; any other part (audio, files, provider blocks) is counted as its JSON text.
 */

import type { BaseMessage } from "@langchain/core/messages";

export const TOKENS_PER_MESSAGE = 3;
export const TOKENS_PER_NAME = 1;
export const REPLY_PRIMING_TOKENS = 3;
export const TOKENS_PER_TOOL_CALL = 3;
export const IMAGE_TOKENS_LOW_DETAIL = 85;
export const IMAGE_TOKENS_DEFAULT = 765;

/** The OpenAI role a LangChain message is sent as. */
export function openAIRole(message: BaseMessage): string {
  const type = message.getType();
  switch (type) {
    case "human":
      return "user";
    case "ai":
      return "assistant";
    case "generic":
      return String((message as BaseMessage & { role?: string }).role ?? "user");
    default:
      return type;
  }
}

interface ContentPart {
  type?: string;
  text?: unknown;
  image_url?: unknown;
  detail?: unknown;
  [key: string]: unknown;
}

/**
 * Count one message with `countText`, excluding the reply priming (added once per conversation).
 * `countText` must count special-token strings as plain text.
 */
export function countMessageTokens(message: BaseMessage, countText: (text: string) => number): number {
  let tokens = TOKENS_PER_MESSAGE + countText(openAIRole(message));
  tokens += countContent(message.content, countText);
  if (typeof message.name === "string" && message.name.length > 0) {
    tokens += countText(message.name) + TOKENS_PER_NAME;
  }
  const toolCalls = (message as BaseMessage & { tool_calls?: Array<{ name: string; args: unknown }> }).tool_calls;
  if (message.getType() === "ai" && Array.isArray(toolCalls)) {
    for (const call of toolCalls) {
      tokens += TOKENS_PER_TOOL_CALL + countText(String(call.name ?? "")) + countText(stringifyArgs(call.args));
    }
  }
  return tokens;
}

function stringifyArgs(args: unknown): string {
  if (typeof args === "string") return args;
  try {
    return JSON.stringify(args ?? {});
  } catch {
    return String(args);
  }
}

export function countContent(content: unknown, countText: (text: string) => number): number {
  if (typeof content === "string") return content.length === 0 ? 0 : countText(content);
  if (!Array.isArray(content)) return content == null ? 0 : countText(stringifyArgs(content));
  let tokens = 0;
  for (const raw of content as Array<ContentPart | string>) {
    if (typeof raw === "string") {
      tokens += countText(raw);
      continue;
    }
    const part = raw ?? {};
    if (typeof part.text === "string" && (part.type === "text" || part.type === undefined)) {
      tokens += countText(part.text);
    } else if (part.type === "image_url" || part.type === "image") {
      tokens += imageDetail(part) === "low" ? IMAGE_TOKENS_LOW_DETAIL : IMAGE_TOKENS_DEFAULT;
    } else {
      tokens += countText(stringifyArgs(part));
    }
  }
  return tokens;
}

function imageDetail(part: ContentPart): unknown {
  if (part.image_url && typeof part.image_url === "object") {
    return (part.image_url as { detail?: unknown }).detail;
  }
  return part.detail ?? (part.metadata as { detail?: unknown } | undefined)?.detail;
}
