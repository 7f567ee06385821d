/**
 * What a provider's prompt cache serves of a model call: the prefix of its input that the previous call sent too —
 * tools, then system prompt, then messages, compared message by message (the same id, type, name, content, tool calls
 * and tool call id: `sameMessage`, the rebase's rule) — read from the cache; the rest is new (written to it).
 * Any rewrite of the history (a compaction, a cleared tool result, a sliding window) makes everything from the first
 * changed message on new. Counted at message granularity, and inside the first changed message at its content's
 * block boundaries (where Anthropic's cache matches; OpenAI's matches any token prefix): the text blocks it starts
 * with, as the previous call sent them, are served (`sharedBlockTokens`). The framing tokens before the first
 * changed message's content are counted as new, a few tokens more than a provider's token-level prefix.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { countContent, REPLY_PRIMING_TOKENS } from "../tokens/chat-format.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import { sumOf } from "./calibration.js";
import { sameMessage } from "./rebase.js";

/** One model call's input as the cache sees it. */
export interface CallInput {
  messages: readonly BaseMessage[];
  /** Tokens of the tool definitions sent with the call (before the messages). @default 0 */
  toolTokens?: number;
  /** An identity of those tools (their JSON): other tools, nothing cached. @default "" */
  toolsKey?: string;
}

export interface CacheSplit {
  /** Input tokens read from the cache (an exact prefix of the previous call's input). */
  cached: number;
  /** Input tokens after that prefix: written to the cache (Anthropic), or billed in full (OpenAI). */
  fresh: number;
  /** Messages of the prefix. */
  sharedMessages: number;
}

/** How many leading messages `current` shares with `previous`. */
export function sharedMessages(previous: readonly BaseMessage[], current: readonly BaseMessage[]): number {
  let shared = 0;
  while (shared < previous.length && shared < current.length && sameMessage(previous[shared]!, current[shared]!))
    shared++;
  return shared;
}

/**
 * The tokens of the content blocks `current` starts with that `previous` sent as its own first blocks: the same
 * type and name, both contents lists of parts. A message whose text grew by a block (the summary log's new
 * segment, engine/summary-log.ts) keeps its earlier blocks in the cache; the id is not sent, so it does not count.
 */
export function sharedBlockTokens(
  previous: BaseMessage | undefined,
  current: BaseMessage | undefined,
  counter: TokenCounter,
): number {
  if (!previous || !current || previous.getType() !== current.getType() || previous.name !== current.name) return 0;
  if (!Array.isArray(previous.content) || !Array.isArray(current.content)) return 0;
  const [before, after] = [previous.content as unknown[], current.content as unknown[]];
  let shared = 0;
  while (
    shared < before.length &&
    shared < after.length &&
    JSON.stringify(before[shared]) === JSON.stringify(after[shared])
  )
    shared++;
  return shared === 0 ? 0 : countContent(after.slice(0, shared), (text) => counter.countText(text));
}

/** The split of `current`'s input into what the cache serves from `previous` (none: a cold cache) and the rest. */
export function cacheSplit(previous: CallInput | undefined, current: CallInput, counter: TokenCounter): CacheSplit {
  const warm = previous !== undefined && (previous.toolsKey ?? "") === (current.toolsKey ?? "");
  const shared = warm ? sharedMessages(previous.messages, current.messages) : 0;
  // `total` holds the reply priming at the end of the input (never part of a shared prefix); `after` the messages
  // from the first one not shared.
  const { total, after } = counter.countMessagesFrom(current.messages, shared);
  const tools = current.toolTokens ?? 0;
  const partial = warm ? sharedBlockTokens(previous.messages[shared], current.messages[shared], counter) : 0;
  const cached = warm ? tools + total - after - REPLY_PRIMING_TOKENS + partial : 0;
  return { cached, fresh: tools + total - cached, sharedMessages: shared };
}

/**
 * The tokens a rewrite of `before` into `after` takes out of the provider's cache: `after` from its first message
 * that differs on, less the blocks that message starts with unchanged (`sharedBlockTokens`), in the provider's tokens (`ratio` per tokenizer token). `each`: the tokenizer's count of each
 * message of `after`, when the caller has it (else `counter` counts them).
 */
export function rewrittenTokens(
  before: readonly BaseMessage[],
  after: readonly BaseMessage[],
  counter: TokenCounter,
  ratio = 1,
  each?: readonly number[],
): number {
  const shared = sharedMessages(before, after);
  const from = each ? sumOf(each, shared) : counter.countMessagesFrom(after, shared).after;
  return Math.round((from - sharedBlockTokens(before[shared], after[shared], counter)) * ratio);
}
