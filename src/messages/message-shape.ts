/**
 * What the transcript reads of a message, from a LangChain message or from the plain JSON of one (the Agent
 * Server's state through the SDK, in a browser): its type, content, tool calls and `additional_kwargs`. Plain data:
 * no Node built-ins, nothing of LangChain at run time.
 */

/** A content part: text, or a part of another kind (an image, a file), named by its type. */
export type ContentPart = string | { type?: string; text?: unknown; [key: string]: unknown };

export interface MessageShape {
  id?: string | null;
  /** The message's type ("human", "ai", "tool", "system"…): a LangChain message's `getType()`, a plain one's `type`. */
  type?: string;
  getType?: () => string;
  /** A string or content parts (`ContentPart`) in a well-formed message; whatever a plain object holds otherwise. */
  content: unknown;
  name?: string;
  tool_calls?: unknown;
  additional_kwargs?: unknown;
}

export function typeOf(message: MessageShape): string {
  return typeof message.getType === "function" ? message.getType() : String(message.type ?? "");
}

/**
 * The text of a message: its string content, or its text parts joined by line breaks, other parts named in
 * brackets ("[image_url]").
 */
export function contentText(message: MessageShape): string {
  const content = message.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return (content as ContentPart[])
    .map((part) =>
      typeof part === "string"
        ? part
        : part.type === "text" && typeof part.text === "string"
          ? part.text
          : `[${String(part.type)}]`,
    )
    .join("\n");
}

/** The tool calls of an AI message (none for any other). */
export function toolCallsOf(message: MessageShape): Array<{ id?: string; name: string; args?: unknown }> {
  if (typeOf(message) !== "ai") return [];
  const calls = message.tool_calls;
  return Array.isArray(calls) ? calls : [];
}

/** The searchable text of a message: its text, then its tool calls as `name(arguments)`. */
export function recallText(message: MessageShape): string {
  const calls = toolCallsOf(message).map((call) => `${call.name}(${JSON.stringify(call.args ?? {})})`);
  return [contentText(message), ...calls].filter((part) => part !== "").join("\n");
}
