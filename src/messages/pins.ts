/**
 * Pinned content: messages that no strategy clears, clips, drops or summarizes. A message is pinned by the marker
 * `additional_kwargs.pinned === true` (see `pinMessage`) or by a predicate given to the strategy.
 */
import { BaseMessage } from "@langchain/core/messages";

export const PIN_KEY = "pinned";

export type PinPredicate = (message: BaseMessage, index: number) => boolean;

/** A copy of `message` carrying the pin marker (the input is not mutated). */
export function pinMessage<T extends BaseMessage>(message: T): T {
  const Type = message.constructor as new (fields: Record<string, unknown>) => T;
  const fields = { ...(message as unknown as { lc_kwargs: Record<string, unknown> }).lc_kwargs };
  return new Type({ ...fields, additional_kwargs: { ...message.additional_kwargs, [PIN_KEY]: true } });
}

export function isPinned(message: BaseMessage, index: number, predicate?: PinPredicate): boolean {
  return message.additional_kwargs?.[PIN_KEY] === true || (predicate?.(message, index) ?? false);
}
