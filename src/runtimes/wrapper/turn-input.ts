/**
 * The messages of a turn's input, as the graph's `messages` reducer will store them: BaseMessage instances, and
 * message-likes (`{ role, content }`, `["user", "..."]`, a string) coerced the way LangChain coerces them, so a
 * plain-object input counts in the pre-turn `hardLimit` check like the messages it becomes.
 */
import { BaseMessage, coerceMessageLikeToMessage, type BaseMessageLike } from "@langchain/core/messages";

export function inputMessages(input: unknown): BaseMessage[] {
  const raw = (input as { messages?: unknown } | null | undefined)?.messages;
  if (raw === undefined || raw === null) return [];
  const list: unknown[] = Array.isArray(raw) ? raw : [raw];
  const messages: BaseMessage[] = [];
  for (const item of list) {
    if (BaseMessage.isInstance(item)) {
      messages.push(item);
      continue;
    }
    try {
      messages.push(coerceMessageLikeToMessage(item as BaseMessageLike));
    } catch {
      // Not a message the graph would accept either: the graph reports it; nothing to count.
    }
  }
  return messages;
}
