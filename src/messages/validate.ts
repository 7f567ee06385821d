/**
 * What a chat provider would reject in a history. An empty result means valid.
 */

import { BaseMessage } from "@langchain/core/messages";
import { toolCallIdOf, toolCallsOf } from "./tool-calls.js";

export type HistoryProblemCode =
  "NOT_A_MESSAGE" | "ORPHAN_TOOL_RESULT" | "UNANSWERED_TOOL_CALL" | "SYSTEM_OUT_OF_PLACE" | "DUPLICATE_ID";

export interface HistoryProblem {
  code: HistoryProblemCode;
  /** Index of the offending message. */
  index: number;
  message: string;
}

/**
 * Lists the problems of `messages`:
 * - a value that is not a LangChain message;
 * - a tool message whose call is not in the AI message just before its run of tool results (orphan);
 * - a tool call never answered before the next non-tool message (or the end);
 * - a system message after a non-system message (Anthropic and others reject it);
 * - two messages with the same id (the messages reducer would replace instead of append).
 */
export function validateHistory(messages: readonly unknown[]): HistoryProblem[] {
  const problems: HistoryProblem[] = [];
  const seenIds = new Map<string, number>();
  let seenNonSystem = false;
  let openCalls = new Map<string, string>(); // call id -> tool name, for the current AI message
  let openCallsFrom = -1;

  const closeOpenCalls = () => {
    for (const [id, name] of openCalls) {
      problems.push({
        code: "UNANSWERED_TOOL_CALL",
        index: openCallsFrom,
        message: `tool call ${id} (${name}) at index ${openCallsFrom} has no tool message answering it`,
      });
    }
    openCalls = new Map();
  };

  messages.forEach((value, index) => {
    if (!BaseMessage.isInstance(value)) {
      problems.push({ code: "NOT_A_MESSAGE", index, message: `index ${index} is not a LangChain message` });
      return;
    }
    const message = value;
    if (typeof message.id === "string" && message.id.length > 0) {
      const first = seenIds.get(message.id);
      if (first !== undefined) {
        problems.push({
          code: "DUPLICATE_ID",
          index,
          message: `id ${message.id} at index ${index} repeats index ${first}`,
        });
      } else {
        seenIds.set(message.id, index);
      }
    }
    const type = message.getType();
    if (type === "tool") {
      const callId = toolCallIdOf(message);
      if (callId === undefined || !openCalls.has(callId)) {
        problems.push({
          code: "ORPHAN_TOOL_RESULT",
          index,
          message: `tool message at index ${index} answers call ${String(callId)}, which the preceding AI message did not make`,
        });
      } else {
        openCalls.delete(callId);
      }
      return;
    }
    closeOpenCalls();
    if (type === "system") {
      if (seenNonSystem) {
        problems.push({
          code: "SYSTEM_OUT_OF_PLACE",
          index,
          message: `system message at index ${index} follows a non-system message`,
        });
      }
    } else {
      seenNonSystem = true;
    }
    const calls = toolCallsOf(message);
    if (calls.length > 0) {
      openCallsFrom = index;
      for (const call of calls) openCalls.set(String(call.id), call.name);
    }
  });
  closeOpenCalls();
  return problems;
}
