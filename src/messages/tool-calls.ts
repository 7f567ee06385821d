/** The tool calls of an AI message and the call a tool message answers, read the same way everywhere. */
import type { BaseMessage } from "@langchain/core/messages";

/** The tool calls of an AI message: one reader for LangChain messages and plain ones (message-shape.ts). */
export { toolCallsOf } from "./message-shape.js";

export interface ToolCallLike {
  id?: string;
  name: string;
}

export function toolCallIdOf(message: BaseMessage): string | undefined {
  if (message.getType() !== "tool") return undefined;
  return (message as BaseMessage & { tool_call_id?: string }).tool_call_id;
}

export function isHandoffName(name: string): boolean {
  return name.startsWith("transfer_to_") || name.startsWith("transfer_back_to_");
}
