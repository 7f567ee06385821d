/**
 * Counting what the provider counts (docs/token-counting.md). Every LangChain chat model returns, on its reply, the
 * provider's own count of what that call received: `usage_metadata.input_tokens`. Where the thread's latest AI
 * message carries it (only the latest: a reply without one leaves the count the tokenizer's), the context before the next call is that figure plus what was appended since (the reply
 * itself, tool results, the next input), counted by the tokenizer and scaled by the ratio of the provider's counts to
 * the tokenizer's, learned per model from the calls seen (the median of the latest 8). A figure whose own ratio is
 * more than 10% off its model's no longer counts its call's input (the messages before the reply changed since: a
 * compaction kept it verbatim); the model's ratio then scales the tokenizer's count of the whole context. Without
 * usage figures, the tokenizer's count as it is.
 *
 * A figure that is missing, zero, negative, not a number, or more than 4× or less than a quarter of the tokenizer's
 * count of the same input is never trusted: the count falls back to the tokenizer's, and the figure is told once per
 * model (`USAGE_IGNORED`) — except a figure over 4× of a model whose ratio is known, which is a reply a compaction
 * kept (its call saw the whole thread): the model's ratio then scales the count, as for any figure off its ratio. The ratios live in this object only (one per wrapper, middleware or node), never in a
 * store: nothing learned from one application's threads reaches another's.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { TokenCounter } from "./token-counter.js";

/** The provider's figures of one call, from its reply's `usage_metadata`. */
export interface ProviderUsage {
  /** Tokens the provider counted in the call's input (system prompt and tools included). */
  inputTokens: number;
  /** Of those, read from the provider's prompt cache, when it says. */
  cacheRead?: number;
  /** Of those, written to the provider's prompt cache, when it says. */
  cacheCreation?: number;
}

/** A count of a context before a model call. */
export interface MeasuredContext {
  /** Tokens: the provider's figure plus what was appended since, scaled; else the tokenizer's count. */
  tokens: number;
  /** Whether `tokens` starts from a provider's figure. */
  calibrated: boolean;
  /** Provider tokens per tokenizer token for the model that answered last (1 without usage figures). */
  ratio: number;
  /** The provider's figures of the latest call, when calibrated. */
  usage?: ProviderUsage;
}

export interface UsageIgnoredNotice {
  code: "USAGE_IGNORED";
  /** The model whose figure was ignored (its reply's `response_metadata.model_name`, else "unknown"). */
  model: string;
  /** The figure as reported. */
  value: unknown;
  message: string;
}

/** A provider's figure this far from the tokenizer's is not trusted (more than 4×, or under a quarter). */
export const MAX_RATIO = 4;
export const MIN_RATIO = 1 / MAX_RATIO;
/** The latest observations of a model's ratio kept; their median is the ratio used. */
export const RATIO_WINDOW = 8;
/** How far a call's own ratio may be from its model's for its figure to count that call's input (10%). */
export const CONSISTENT = 0.1;
/** Models whose ratio is kept, at most (the least recently seen go first). */
export const MAX_MODELS = 64;

interface ModelRatios {
  observed: number[];
  /** The median of `observed` (1 when empty), kept as they change. */
  ratio: number;
  /** Ids of the replies already observed (each call counts once, however often the thread is counted). */
  seen: Set<string>;
  warned: boolean;
}

export class Calibration {
  private readonly models = new Map<string, ModelRatios>();
  private readonly seenObjects = new WeakSet<BaseMessage>();
  /** Each reply's model and figures, read once (a thread is counted at every call; its replies do not change). */
  private readonly replies = new WeakMap<BaseMessage, { model: string; usage: ProviderUsage | undefined }>();

  constructor(
    private readonly counter: TokenCounter,
    private readonly notice?: (notice: UsageIgnoredNotice) => void,
  ) {}

  /** The ratio learned for `model`: the median of its latest observations, 1 before any. */
  ratioOf(model: string): number {
    return this.models.get(model)?.ratio ?? 1;
  }

  /**
   * The context `messages` make before the next model call, with `overhead` (what the call sends besides them, as
   * the tokenizer counts it: a system prompt, tools) — see the file's comment.
   */
  measure(messages: readonly BaseMessage[], overhead = 0): MeasuredContext {
    // The latest reply: only its figure counts (a reply without one — a model that reports none, a summary written
    // as an AI message — leaves the count the tokenizer's).
    let index = messages.length - 1;
    while (index >= 0 && messages[index]!.getType() !== "ai") index--;
    const message = index >= 0 ? messages[index]! : undefined;
    const reported = (message as { usage_metadata?: { input_tokens?: unknown } } | undefined)?.usage_metadata;
    // One pass over the counts (cached per message, as without calibration): the whole context and what follows the
    // reply's call (the reply, tool results, the next input).
    const { total: counted, after: appended } = this.counter.countMessagesFrom(messages, index < 0 ? messages.length : index);
    const total = counted + overhead;
    if (message && reported !== undefined) {
      const { model, usage } = this.parse(message, reported);
      const before = total - appended;
      const observed = usage && before > 0 ? usage.inputTokens / before : undefined;
      const known = (this.models.get(model)?.observed.length ?? 0) > 0;
      if (!usage || observed === undefined || observed < MIN_RATIO || (observed > MAX_RATIO && !known)) {
        this.ignored(model, reported.input_tokens, before);
        return { tokens: total, calibrated: false, ratio: 1 };
      }
      // Far above the model's ratio: a reply a compaction kept, whose call saw the whole thread (no notice).
      if (observed > MAX_RATIO) {
        const ratio = this.ratioOf(model);
        return { tokens: Math.ceil(ratio * total), calibrated: true, ratio };
      }
      const ratio = this.observe(model, message, observed);
      // The figure counts the call's input only while the messages before the reply are still what the call saw: a
      // compaction since (the reply kept verbatim after a summary) shows as a ratio off the model's. Then the ratio
      // alone scales the tokenizer's count.
      if (Math.abs(observed / ratio - 1) > CONSISTENT) return { tokens: Math.ceil(ratio * total), calibrated: true, ratio };
      return { tokens: Math.ceil(usage.inputTokens + ratio * appended), calibrated: true, ratio, usage };
    }
    return { tokens: total, calibrated: false, ratio: 1 };
  }

  private parse(message: BaseMessage, reported: Parameters<typeof usageOf>[0]): { model: string; usage: ProviderUsage | undefined } {
    let parsed = this.replies.get(message);
    if (!parsed) this.replies.set(message, (parsed = { model: modelOf(message), usage: usageOf(reported) }));
    return parsed;
  }

  /** Records the ratio of `message`'s call (once per reply); returns the model's ratio. */
  private observe(model: string, message: BaseMessage, ratio: number): number {
    const ratios = this.ratiosOf(model);
    if (message.id ? ratios.seen.has(message.id) : this.seenObjects.has(message)) return ratios.ratio;
    if (message.id) {
      ratios.seen.add(message.id);
      // The ids of the latest replies only: enough to tell a reply counted before from a new one.
      if (ratios.seen.size > RATIO_WINDOW * 4) ratios.seen.delete(ratios.seen.values().next().value!);
    } else this.seenObjects.add(message);
    ratios.observed.push(ratio);
    if (ratios.observed.length > RATIO_WINDOW) ratios.observed.shift();
    const sorted = [...ratios.observed].sort((a, b) => a - b);
    const middle = sorted.length >> 1;
    ratios.ratio = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
    return ratios.ratio;
  }

  private ignored(model: string, value: unknown, tokenizer: number): void {
    const ratios = this.ratiosOf(model);
    if (ratios.warned) return;
    ratios.warned = true;
    this.notice?.({
      code: "USAGE_IGNORED",
      model,
      value,
      message: `The usage figure ${JSON.stringify(value) ?? String(value)} of ${model} was ignored (the tokenizer counts ${tokenizer} tokens for the same input; a figure must be a positive number within ${MIN_RATIO}–${MAX_RATIO}× of that): counts of its threads use the tokenizer.`,
    });
  }

  private ratiosOf(model: string): ModelRatios {
    let ratios = this.models.get(model);
    // The most recently seen model last (what is evicted first is the least recently seen).
    if (ratios && this.models.size > 1) this.models.delete(model);
    else if (ratios) return ratios;
    else if (this.models.size >= MAX_MODELS) this.models.delete(this.models.keys().next().value!);
    this.models.set(model, (ratios ??= { observed: [], ratio: 1, seen: new Set(), warned: false }));
    return ratios;
  }
}

/** The provider's figures in a reply's `usage_metadata`, or undefined when its input count is not a positive number. */
export function usageOf(reported: { input_tokens?: unknown; input_token_details?: { cache_read?: unknown; cache_creation?: unknown } }): ProviderUsage | undefined {
  const input = reported.input_tokens;
  if (typeof input !== "number" || !Number.isFinite(input) || input <= 0) return undefined;
  const details = reported.input_token_details;
  const count = (value: unknown) => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined);
  const cacheRead = count(details?.cache_read);
  const cacheCreation = count(details?.cache_creation);
  return { inputTokens: input, ...(cacheRead === undefined ? {} : { cacheRead }), ...(cacheCreation === undefined ? {} : { cacheCreation }) };
}

function modelOf(message: BaseMessage): string {
  const name = (message.response_metadata as { model_name?: unknown; model?: unknown } | undefined)?.model_name ?? (message.response_metadata as { model?: unknown } | undefined)?.model;
  return typeof name === "string" && name !== "" ? name : "unknown";
}
