/**
 * One recorded model call as the cost benchmark prices it (pricing.ts): its input split against the previous call's
 * (engine/prompt-cache.ts), and what it would have written had no rewrite broken the cache — the tokens of the messages
 * after the last one it shares with the previous call, by id. That second figure prices the bound of any scheduling:
 * every compaction landing where the cache is cold anyway, for nothing.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { cacheSplit, type CallInput } from "../../../src/engine/prompt-cache.js";
import { REPLY_PRIMING_TOKENS } from "../../../src/tokens/chat-format.js";
import type { TokenCounter } from "../../../src/tokens/token-counter.js";
import type { PricedCall } from "./pricing.js";

export interface RecordedInput {
  messages: readonly BaseMessage[];
}

/** The tokens of `current` after its last message that `previous` sent too (by id), the reply priming included. */
export function appendedTokens(
  previous: readonly BaseMessage[],
  current: readonly BaseMessage[],
  counter: TokenCounter,
): number {
  const sent = new Set(previous.map((message) => message.id).filter((id) => id !== undefined));
  let last = -1;
  current.forEach((message, index) => {
    if (message.id !== undefined && sent.has(message.id)) last = index;
  });
  const { after } = counter.countMessagesFrom(current, last + 1);
  return after + REPLY_PRIMING_TOKENS;
}

/**
 * Price inputs for `current` after `previous` (none: the first call). `tools`: the tool tokens and identity sent with
 * every call; `gapMinutes`: model time since the previous call (Infinity: a cold cache).
 */
export function pricedCall(
  previous: RecordedInput | undefined,
  current: RecordedInput,
  {
    counter,
    output,
    gapMinutes,
    tools = {},
  }: { counter: TokenCounter; output: number; gapMinutes: number; tools?: Omit<CallInput, "messages"> },
): PricedCall {
  const split = cacheSplit(
    previous && { messages: previous.messages, ...tools },
    { messages: current.messages, ...tools },
    counter,
  );
  const rewrite = previous !== undefined && split.sharedMessages < previous.messages.length;
  return {
    cached: split.cached,
    fresh: split.fresh,
    appended: rewrite
      ? Math.min(split.fresh, appendedTokens(previous.messages, current.messages, counter))
      : split.fresh,
    output,
    gapMinutes,
    rewrite,
  };
}
