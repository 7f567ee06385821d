/**
 * The messages of a thread's state as the wrapper counts them: the same rule as the engine's (store/read-head.ts),
 * so a `messages` channel the engine refuses is reported by the wrapper too, never counted as an empty thread.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { CompactionError } from "../../errors.js";
import { requireMessages } from "../../store/read-head.js";

/** @throws CompactionError INVALID_HISTORY naming the first value that is not a LangChain message. */
export function storedMessages(values: unknown, threadId: string): BaseMessage[] {
  return requireMessages((values as { messages?: unknown } | undefined)?.messages, threadId);
}

/** `storedMessages`, or none when they cannot be counted (the caller reports that elsewhere). */
export function storedMessagesOrEmpty(values: unknown, threadId: string): BaseMessage[] {
  try {
    return storedMessages(values, threadId);
  } catch (error) {
    if (error instanceof CompactionError && error.code === "INVALID_HISTORY") return [];
    throw error;
  }
}
