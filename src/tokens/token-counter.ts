import type { BaseMessage } from "@langchain/core/messages";
import { z } from "zod";
import { argument } from "../options/check.js";
import { array, integer } from "../options/rules.js";

const LENGTH = integer(16).optional();
import { countMessageTokens, REPLY_PRIMING_TOKENS } from "./chat-format.js";
import { getEngine, type TokenizerEngine } from "./engines.js";
import { DEFAULT_CACHE_BYTES, MessageTokenCache } from "./message-cache.js";
import { DEFAULT_MODEL, resolveModel, type ModelInfo } from "./models.js";
import { modelNameOf, type ModelOption } from "./model-option.js";
import { countBounded, type SplitOptions } from "./split.js";
import { countToolDefinitions, type ToolDefinitionLike } from "./tool-definitions.js";

const SHORT_TEXT_LENGTH = 48;

export interface TokenCounterOptions extends SplitOptions {
  /**
   * The model, by name or as the chat model (its name is read): picks the encoding and the context window. Unknown
   * names fall back to o200k_base. @default "gpt-4o"
   */
  model?: ModelOption;
  /**
   * Bytes the per-message count cache may hold (messages seen again after a checkpoint reload are answered from
   * it; long texts are kept as fingerprints). @default 16 MiB
   */
  cacheBytes?: number;
}

export interface CountMessagesOptions {
  /** Tool definitions sent with the request: OpenAI format or LangChain tools. */
  tools?: readonly ToolDefinitionLike[];
}

/**
 * Counts tokens the way OpenAI bills a chat request.
 *
 * `countMessages` is incremental: each message is encoded once, then answered from a cache keyed by the message
 * object and by its id and content, so counting a thread after a turn encodes only the new messages, and a cached
 * count always equals a cold one. Counting never stalls on pathological text (see split.ts for the error bound).
 *
 * @throws CompactionError INVALID_ARGUMENT for a model that is neither a name nor a chat model.
 */
export class TokenCounter {
  readonly model: string;
  readonly modelInfo: ModelInfo;
  private readonly engine: TokenizerEngine;
  private readonly split: SplitOptions;
  private readonly cache: MessageTokenCache;
  /** Bound once: a closure made per message showed up in the count of a reloaded thread. */
  private readonly encodeMessage = (message: BaseMessage): number => countMessageTokens(message, this.countTextBound);
  private readonly countTextBound = (text: string): number => this.countText(text);

  constructor({
    model: given,
    segmentLength,
    maxRunLength,
    cacheBytes = DEFAULT_CACHE_BYTES,
  }: TokenCounterOptions = {}) {
    argument("cacheBytes", cacheBytes, integer(0, { says: "a non-negative integer number of bytes" }));
    this.cache = new MessageTokenCache(cacheBytes);
    const model = modelNameOf(given) ?? DEFAULT_MODEL;
    argument("segmentLength", segmentLength, LENGTH);
    argument("maxRunLength", maxRunLength, LENGTH);
    this.model = model;
    this.modelInfo = resolveModel(model);
    this.engine = getEngine(this.modelInfo.encoding);
    this.split = { segmentLength, maxRunLength };
  }

  get encoding() {
    return this.modelInfo.encoding;
  }

  /** Tokens of plain text. Special-token strings count as text. */
  countText(text: string): number {
    if (typeof text !== "string") argument("text", text, z.string({ error: "a string" }));
    if (text.length === 0) return 0;
    if (text.length <= SHORT_TEXT_LENGTH) return this.engine.countShort(text);
    return countBounded(text, this.engine.encoding, (piece) => this.engine.count(piece), this.split);
  }

  /** Tokens of one message, without the 3 tokens of reply priming. Cached. */
  countMessage(message: BaseMessage): number {
    return this.cache.get(message, this.encodeMessage);
  }

  /** Tokens of each message, in order (reply priming not included). */
  countEach(messages: readonly BaseMessage[]): number[] {
    const each = new Array<number>(messages.length);
    this.cache.countAllFrom(messages, this.encodeMessage, messages.length, each);
    return each;
  }

  /** Tokens of a whole request: messages, reply priming, and tool definitions when given. */
  countMessages(messages: readonly BaseMessage[], { tools }: CountMessagesOptions = {}): number {
    if (!Array.isArray(messages)) argument("messages", messages, array("an array of BaseMessage"));
    let total = REPLY_PRIMING_TOKENS + this.cache.countAll(messages, this.encodeMessage);
    if (tools && tools.length > 0) total += this.countTools(tools);
    return total;
  }

  /**
   * `countMessages(messages)` as `total`, and the tokens of the messages from position `from` on as `after` (reply
   * priming not included), from one pass over the cache.
   */
  countMessagesFrom(messages: readonly BaseMessage[], from: number): { total: number; after: number } {
    const { total, after } = this.cache.countAllFrom(messages, this.encodeMessage, from);
    return { total: REPLY_PRIMING_TOKENS + total, after };
  }

  /** Tokens of tool definitions (OpenAI's cookbook formula). */
  countTools(tools: readonly ToolDefinitionLike[]): number {
    return countToolDefinitions(tools, this.engine.encoding, (text) => this.countText(text));
  }

  /** How many messages were encoded and how many answered from the cache, since construction. */
  get cacheStats(): { encoded: number; hits: number } {
    return { encoded: this.cache.encoded, hits: this.cache.hits };
  }
}
