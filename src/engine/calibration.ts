/**
 * Counting what the provider counts (docs/token-counting.md). Every LangChain chat model returns, on its reply, the
 * provider's own count of what that call received: `usage_metadata.input_tokens`. Where the thread's latest AI
 * message carries it (only the latest: a reply without one leaves the count the tokenizer's), the context before the next call is that figure plus what was appended since (the reply
 * itself, tool results, the next input), counted by the tokenizer and scaled by the ratio of the provider's counts to
 * the tokenizer's, learned per model from the calls seen (the median of the latest 8). A figure whose own ratio is
 * more than 10% off its model's no longer counts its call's input (the messages before the reply changed since: a
 * compaction kept it verbatim); the model's ratio then scales the tokenizer's count of the whole context. The first
 * reply seen as the latest under a summary may be such a reply too, whatever its ratio (a process that starts on a
 * compacted head has no ratio to compare with): its figure is neither used nor learned from, and the count is the
 * ratio's, or the tokenizer's before any. Without usage figures, the tokenizer's count as it is.
 *
 * A figure that is missing, zero, negative, not a number, or more than 4× or less than a quarter of the tokenizer's
 * count of the same input is never trusted: the count falls back to the tokenizer's, and the figure is told once per
 * model (`USAGE_IGNORED`). Trusted figures never bring a count under MIN_COUNTED_SHARE of the tokenizer's (told once
 * per model, `USAGE_FLOORED`) — except a figure over 4× of a model whose ratio is known, which is a reply a compaction
 * kept (its call saw the whole thread): the model's ratio then scales the count, as for any figure off its ratio. The ratios live in this object only (one per wrapper, middleware or node), never in a
 * store: nothing learned from one application's threads reaches another's.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { isSummaryMessage } from "../messages/summary-message.js";
import { REPLY_PRIMING_TOKENS } from "../tokens/chat-format.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import { latestReply, modelOf, usageOf, type ProviderUsage } from "./reply-usage.js";

export { latestUsage, usageOf, type ProviderUsage } from "./reply-usage.js";
import { CompactionError } from "../errors.js";

/**
 * langchain's `tokenCounter`: the tokens of a list of messages, as the application counts them. Given, it counts every
 * decision's context instead of the tokenizer and the provider's figures; the planner's budgets are scaled by its
 * ratio to the tokenizer's count of the same messages, so a plan ends where the counter says.
 */
export type TokenCounterFunction = (messages: BaseMessage[]) => number | Promise<number>;

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
  /** The tokenizer's count of each message (reply priming not included): what a plan of these messages sums. */
  each: readonly number[];
}

export interface UsageIgnoredNotice {
  /**
   * `USAGE_IGNORED`: a figure not trusted (the tokenizer counts instead); `USAGE_FLOORED`: trusted figures that would
   * put the count under MIN_COUNTED_SHARE of the tokenizer's (the count stops there).
   */
  code: "USAGE_IGNORED" | "USAGE_FLOORED";
  /** The model whose figure was ignored (its reply's `response_metadata.model_name`, else "unknown"). */
  model: string;
  /** The figure as reported. */
  value: unknown;
  message: string;
}

/** A provider's figure this far from the tokenizer's is not trusted (more than 4×, or under a quarter). */
export const MAX_RATIO = 4;
export const MIN_RATIO = 1 / MAX_RATIO;
/**
 * A calibrated count never falls under this share of the tokenizer's count of the same context: a provider's
 * figure that understates (a constant, a figure that drifts down) cannot let a thread grow past its limit by more than
 * 1 / 0.9 ≈ 1.11× in the tokenizer's count. Real providers count within 0.9–1.4× of the o200k tokenizer on text, so
 * the floor binds only for figures that are wrong; it errs towards compacting early.
 */
export const MIN_COUNTED_SHARE = 0.9;
/** The latest observations of a model's ratio kept; their median is the ratio used. */
export const RATIO_WINDOW = 8;
/** How far a call's own ratio may be from its model's for its figure to count that call's input (10%). */
export const CONSISTENT = 0.1;
/** Summaries whose first reply is remembered, at most (see `predatesSummary`). */
export const MAX_SUMMARIES = 1024;
/** Models whose ratio is kept, at most (the one whose latest new reply is oldest goes first). */
export const MAX_MODELS = 64;

interface ModelRatios {
  observed: number[];
  /** The median of `observed` (1 when empty), kept as they change. */
  ratio: number;
  /** Ids of the replies already observed (each call counts once, however often the thread is counted). */
  seen: Set<string>;
  warned: boolean;
  /** Told that its figures were floored (MIN_COUNTED_SHARE). */
  floored: boolean;
  /** Dropped from the models kept (MAX_MODELS): a reply that still points here looks its model up again. */
  evicted: boolean;
}

/** One reply's model and figures, read once (a thread is counted at every call; its replies do not change). */
interface Reply {
  model: string;
  usage: ProviderUsage | undefined;
  /** Its model's ratios, once the reply was observed. */
  ratios: ModelRatios | undefined;
}

export class Calibration {
  private readonly models = new Map<string, ModelRatios>();
  private readonly seenObjects = new WeakSet<BaseMessage>();
  private readonly replies = new WeakMap<BaseMessage, Reply>();
  /** Per summary id (the latest summaries seen), the id of the first reply seen as the latest under it. */
  private readonly firstUnder = new Map<string, string>();

  constructor(
    private readonly counter: TokenCounter,
    private readonly notice?: (notice: UsageIgnoredNotice) => void,
    /** The application's own counter (langchain's `tokenCounter`), when given: see `count`. */
    readonly custom?: TokenCounterFunction,
  ) {}

  /**
   * The context `messages` make before the next model call, with `overhead` (as the tokenizer counts it): the
   * application's `tokenCounter` when given (the overhead scaled by its ratio to the tokenizer's), else `measure`.
   * Every decision counts here.
   * @throws CompactionError INVALID_ARGUMENT when the counter answers something that is not a number of tokens.
   */
  async count(
    messages: readonly BaseMessage[],
    overhead = 0,
    each: readonly number[] = this.counter.countEach(messages),
  ): Promise<MeasuredContext> {
    if (!this.custom) return this.measure(messages, overhead, each);
    const value = await this.custom([...messages]);
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new CompactionError({
        code: "INVALID_ARGUMENT",
        parameter: "tokenCounter",
        value,
        message: `tokenCounter must return a number of tokens >= 0; got ${typeof value === "number" ? String(value) : JSON.stringify(value)}.`,
      });
    }
    const exact = REPLY_PRIMING_TOKENS + sumOf(each);
    const ratio = exact > 0 && value > 0 ? value / exact : 1;
    return { tokens: Math.ceil(value + overhead * ratio), calibrated: false, ratio, each };
  }

  /** The ratio learned for `model`: the median of its latest observations, 1 before any. */
  ratioOf(model: string): number {
    return this.models.get(model)?.ratio ?? 1;
  }

  /**
   * The context `messages` make before the next model call, with `overhead` (what the call sends besides them, as
   * the tokenizer counts it: a system prompt, tools) — see the file's comment.
   */
  measure(
    messages: readonly BaseMessage[],
    overhead = 0,
    each: readonly number[] = this.counter.countEach(messages),
  ): MeasuredContext {
    // The latest reply: only its figure counts (a reply without one — a model that reports none, a summary written
    // as an AI message — leaves the count the tokenizer's).
    const { index, message, reported } = latestReply(messages);
    // One count of each message (cached per message, as without calibration; `each` when the caller counted): the
    // whole context and what follows the reply's call (the reply, tool results, the next input).
    const appended = index < 0 ? 0 : sumOf(each, index);
    const total = REPLY_PRIMING_TOKENS + sumOf(each) + overhead;
    if (!message || reported === undefined) return { tokens: total, calibrated: false, ratio: 1, each };
    const reply = this.parse(message, reported);
    const { model, usage } = reply;
    const before = total - appended;
    const observed = usage && before > 0 ? usage.inputTokens / before : undefined;
    // A reply observed before (a thread counted again, its latest reply the same object): its model's ratios are at
    // hand, no lookup. Else the figure is checked, and observed once.
    let ratios = reply.ratios !== undefined && !reply.ratios.evicted ? reply.ratios : undefined;
    if (ratios === undefined || observed === undefined || observed < MIN_RATIO) {
      const known = (this.models.get(model)?.observed.length ?? 0) > 0;
      // A reply that may predate the thread's summary (first seen after it): its call saw what the summary replaced.
      if (this.predatesSummary(messages, message)) {
        const ratio = this.ratioOf(model);
        return known
          ? { tokens: Math.ceil(ratio * total), calibrated: true, ratio, each }
          : { tokens: total, calibrated: false, ratio: 1, each };
      }
      if (!usage || observed === undefined || observed < MIN_RATIO || (observed > MAX_RATIO && !known)) {
        this.ignored(model, reported.input_tokens, before);
        return { tokens: total, calibrated: false, ratio: 1, each };
      }
      if (observed <= MAX_RATIO) reply.ratios = ratios = this.observe(model, message, observed);
    }
    const ratio = ratios?.ratio ?? this.ratioOf(model);
    // Far above the model's ratio (a reply a compaction kept, whose call saw the whole thread), or off it by more
    // than CONSISTENT: the messages before the reply are no longer what its call saw. Then the ratio alone scales
    // the tokenizer's count (no notice).
    if (observed > MAX_RATIO || Math.abs(observed / ratio - 1) > CONSISTENT)
      return this.floored(model, { tokens: Math.ceil(ratio * total), calibrated: true, ratio, each }, total);
    return this.floored(
      model,
      { tokens: Math.ceil(usage!.inputTokens + ratio * appended), calibrated: true, ratio, usage, each },
      total,
    );
  }

  /** `measured`, never under MIN_COUNTED_SHARE of the tokenizer's `total` (told once per model when it would be). */
  private floored(model: string, measured: MeasuredContext, total: number): MeasuredContext {
    const floor = Math.ceil(total * MIN_COUNTED_SHARE);
    if (measured.tokens >= floor) return measured;
    const ratios = this.ratiosOf(model);
    if (!ratios.floored) {
      ratios.floored = true;
      this.notice?.({
        code: "USAGE_FLOORED",
        model,
        value: measured.tokens,
        message: `The usage figures of ${model} put a context the tokenizer counts at ${total} tokens at ${measured.tokens}, under ${MIN_COUNTED_SHARE} of it: counts of its threads stop at ${MIN_COUNTED_SHARE}× the tokenizer's.`,
      });
    }
    return { ...measured, tokens: floor, ratio: Math.max(measured.ratio, MIN_COUNTED_SHARE) };
  }

  private parse(message: BaseMessage, reported: Parameters<typeof usageOf>[0]): Reply {
    let parsed = this.replies.get(message);
    if (!parsed)
      this.replies.set(message, (parsed = { model: modelOf(message), usage: usageOf(reported), ratios: undefined }));
    return parsed;
  }

  /**
   * Whether `reply`, the latest reply of `messages`, may have been made before the summary that opens them (after
   * the system messages, where every compaction puts it): the first reply seen as the latest under a summary is
   * (a compaction keeps the latest turns verbatim, and the runtimes measure the head they write); a later one was
   * made by a call that saw the summary.
   */
  private predatesSummary(messages: readonly BaseMessage[], reply: BaseMessage): boolean {
    let index = 0;
    while (index < messages.length && messages[index]!.getType() === "system" && !isSummaryMessage(messages[index]))
      index++;
    const summary = messages[index];
    if (summary === undefined || summary === reply || !isSummaryMessage(summary) || !summary.id) return false;
    const replyId = reply.id ?? "";
    const first = this.firstUnder.get(summary.id);
    if (first === undefined) {
      if (this.firstUnder.size >= MAX_SUMMARIES) this.firstUnder.delete(this.firstUnder.keys().next().value!);
      this.firstUnder.set(summary.id, replyId);
      return true;
    }
    return first === replyId;
  }

  /** Records the ratio of `message`'s call (once per reply); returns the model's ratios. */
  private observe(model: string, message: BaseMessage, ratio: number): ModelRatios {
    const ratios = this.ratiosOf(model);
    if (message.id ? ratios.seen.has(message.id) : this.seenObjects.has(message)) return ratios;
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
    return ratios;
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
    else if (this.models.size >= MAX_MODELS) {
      const oldest = this.models.keys().next().value!;
      this.models.get(oldest)!.evicted = true;
      this.models.delete(oldest);
    }
    this.models.set(
      model,
      (ratios ??= { observed: [], ratio: 1, seen: new Set(), warned: false, floored: false, evicted: false }),
    );
    return ratios;
  }
}

/** The sum of `each` from position `from` on. */
export function sumOf(each: readonly number[], from = 0): number {
  let total = 0;
  for (let index = from; index < each.length; index++) total += each[index]!;
  return total;
}
