/**
 * CompactingSupervisor options: validated once, at construction, with errors that name the option and the value.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import type { ArchiveOptions } from "../../archive/archive.js";
import type { StrategyInput } from "../../strategies/registry.js";
import { CompactionError, invalidArgument } from "../../errors.js";
import type { CompactedReport, CompactionReport } from "../../engine/report.js";
import type { RecallOptions } from "../../engine/history-manager.js";
import type { SummaryRole } from "../../messages/summary-message.js";
import { DEFAULT_COMPACTION_RATIO } from "../../engine/plan.js";
import { validateRatio } from "../../validate-ratio.js";
import { defaultSummarizerMaxTokens } from "../../summarizers/default.js";
import { DEFAULT_CACHE_BYTES } from "../../tokens/message-cache.js";
import { DEFAULT_SUMMARIZER_MAX_TOKENS, type Summarizer } from "../../summarizers/types.js";
import { DEFAULT_MODEL, resolveModel } from "../../tokens/models.js";
import { DEFAULT_MAX_THREADS } from "./thread-records.js";

export const DEFAULT_HARD_LIMIT = 0.9;
/**
 * Without `compactionRatio`, a compaction brings the thread down to this share of `tokenLimit`: the next one comes
 * after the thread grew by the other 20% again, so compaction neither runs every turn nor leaves the budget unused.
 */
export const DEFAULT_COMPACTION_TARGET = 0.8;
/**
 * ...of which the running summary may take this share of `tokenLimit` (never more than its summarizer can write:
 * `Summarizer.maxTokens`), the newest messages the rest (20%), verbatim. A summary holds a thread's facts more
 * densely than the messages themselves (no greetings, no filler, no bulk), so the larger it is, the more of what a
 * later question needs survives; the verbatim tail still holds the live exchange (the latest user turn is never
 * summarized, however small the tail). Chosen on both benchmarks side by side: real conversations
 * (npm run bench:retention) and generated agent threads (npm run bench:peers) both kept more with 0.6 than 0.5,
 * and 0.5 more than the previous 0.25 + half of the messages (README, Performance).
 */
export const DEFAULT_SUMMARY_SHARE = 0.6;
/** With `compactionRatio`, the summary's default share of `tokenLimit`, as before the target existed. */
export const RATIO_SUMMARY_SHARE = 0.25;
export const DEFAULT_FAILURE_THRESHOLD = 3;
/**
 * A compaction aims to bring the thread under `tokenLimit` by at least this share of it (or to `compactionTarget`,
 * whichever is higher), cutting harder when its plan would not (all but the latest turn, never a smaller running
 * summary): the next compaction then comes only after the thread grew by that much. One that would not even end
 * under `tokenLimit` is not written.
 */
export const COMPACTION_MARGIN = 0.1;
export const DEFAULT_MAX_TURNS_OVER_LIMIT = 50;
export const DEFAULT_PAUSE_MS = 10 * 60_000;

/** After `failureThreshold` consecutive failed compactions of a thread, compaction pauses for it for `pauseMs`. */
export interface CircuitBreakerOptions {
  /** @default 3 */
  failureThreshold?: number;
  /** How long compaction stays paused; then one attempt is made (and a failure pauses again). @default 600000 */
  pauseMs?: number;
  /** The time source the pause is measured by, in milliseconds (tests pass a manual clock). @default Date.now */
  clock?: () => number;
}
export const DEFAULT_RECOVERY_RATIO = 0.8;

export interface CompactingSupervisorOptions {
  /** Compact after a turn that leaves the thread above this many tokens; a value <= 1 is a fraction of the window. */
  tokenLimit: number;
  /**
   * Summarize this share (0 < r < 1) of the oldest non-system messages, instead of compacting to `compactionTarget`.
   * @default none: compact to compactionTarget
   */
  compactionRatio?: number;
  /**
   * A compaction brings the thread down to about this share (0 < x < 1) of `tokenLimit`: the running summary
   * (`summaryTokens`) plus the newest messages that fit, verbatim. Ignored when `compactionRatio` or `keepTokens`
   * is given. @default 0.8
   */
  compactionTarget?: number;
  /** Keep the newest messages within this many tokens verbatim after a compaction (instead of compactionTarget). */
  keepTokens?: number;
  /** @default ExtractiveSummarizer offline; LlmSummarizer over ChatOpenAI when OPENAI_API_KEY is set */
  summarizer?: Summarizer;
  /**
   * The model the agents talk to: a name ("gpt-4o") or a chat model (its name is read). Picks the tokenizer and the
   * context window used by fractional limits. @default "gpt-4o"
   */
  model?: string | BaseChatModel;
  /**
   * The model's context window in tokens. Needed for fractional limits with a model this library does not know
   * (an unknown model is counted with o200k_base). @default the known model's window
   */
  contextWindow?: number;
  /**
   * Before a turn, if the stored thread plus the new input exceed this limit (tokens, or a fraction <= 1 of the
   * window), compact first, synchronously. @default 0.9 (of 128,000 tokens for an unknown model without contextWindow)
   */
  hardLimit?: number;
  /**
   * Budget of each summary, in tokens. A running summary is the only place older facts live, so its size follows
   * the limit. @default 50% of tokenLimit (25% with compactionRatio), at most what the summarizer can write
   * (`maxTokens`: 4,000 for an LlmSummarizer, unlimited for the extractive one); never more than 75% of what the
   * summary replaces
   */
  summaryTokens?: number;
  /**
   * Move large tool outputs into a LangGraph BaseStore after each turn, leaving a pointer (head and tail excerpts,
   * sizes, key) in the stored history; give the agents `createArchiveReaderTool({ store })` to read them back.
   */
  archive?: ArchiveOptions;
  /**
   * How to compact: a strategy, a pipeline (an array, e.g. `["clear-tool-results", "summarize"]`: each step only
   * while still over the target) or a name. The target is `tokenLimit × (1 − compactionRatio)`. Messages a strategy
   * removes without a summary are named by a removal marker. @default the HistoryManager's running summary
   */
  strategy?: StrategyInput;
  /** Messages never summarized or cleared, besides those marked with `pinMessage` (`additional_kwargs.pinned`). */
  pinned?: (message: BaseMessage, index: number) => boolean;
  /** Share summarized when recovering from a context-length error. @default 0.8 */
  recoveryRatio?: number;
  /** Run compaction after the call returned (true) or before it returns (false). @default true */
  background?: boolean;
  /**
   * Summarizer used when `summarizer` fails: `"extractive"` or any Summarizer. The report and the summary's
   * provenance say so. @default none (a failed summary writes nothing)
   */
  fallbackSummarizer?: Summarizer | "extractive";
  /**
   * Pause compaction for a thread after repeated failures (so a broken summarizer is not called every turn);
   * `false` disables it. The pause is announced once through `onCompactionError` (code COMPACTION_PAUSED) and
   * visible through `compactionHealth(threadId)`. @default { failureThreshold: 3, pauseMs: 600000 }
   */
  circuitBreaker?: CircuitBreakerOptions | false;
  /**
   * The recall index of compacted messages (searchHistory, the search_history tool): `false` turns it off;
   * `{ language, announce }` as for HistoryManager. @default true
   */
  recall?: boolean | RecallOptions;
  /** Role of the summary message. @default "human" */
  summaryRole?: SummaryRole;
  /** A summary slower than this is abandoned; nothing is written. @default 120000 */
  summaryTimeoutMs?: number;
  /** Called after every compaction that wrote a checkpoint. */
  onCompaction?: (report: CompactedReport) => void | Promise<void>;
  /** Called when a compaction fails (nothing was written; the turn's result is unaffected). */
  onCompactionError?: (error: unknown, context: { threadId?: string }) => void | Promise<void>;
  /**
   * Called with every compaction outcome, written or not: `compacted` (with `rebased` when the summary was carried
   * onto a head that grew while it was written), `skipped` (nothing to summarize, nothing that would end under the
   * ceiling, a head busy or paused at an interrupt: `reason` says which) and `conflict` (the summarized prefix
   * changed meanwhile: the summary was discarded).
   */
  onCompactionOutcome?: (report: CompactionReport) => void | Promise<void>;
  /**
   * After this many turns ending over `tokenLimit` without a compaction landing (a summary still being written,
   * every write losing to another process...), the next turn first waits for the summary in flight, or compacts
   * synchronously, so a thread never grows without bound. @default 50
   */
  maxTurnsOverLimit?: number;
  /**
   * The most threads whose state (last count, summary in flight, turns over the limit) the wrapper keeps; the least
   * recently used idle ones are forgotten first (their next turn reads the thread once). @default 10000
   */
  maxThreads?: number;
  /**
   * Bytes the token counter's per-message cache may hold (texts over 16 KiB kept as fingerprints). With `maxThreads`,
   * this bounds what the wrapper itself keeps in memory, whatever the number of threads and message sizes (see the
   * README's "Memory"). @default 16 MiB
   */
  cacheBytes?: number;
}

export interface ResolvedOptions {
  tokenLimit: number;
  hardLimit: number;
  /** The seed's ratio when given; otherwise the HistoryManager's default, unused while targetTokens is set. */
  compactionRatio: number;
  keepTokens: number | undefined;
  /** tokenLimit × compactionTarget, or undefined when compactionRatio or keepTokens is given. */
  targetTokens: number | undefined;
  recoveryRatio: number;
  modelName: string;
  background: boolean;
  /** Infinity when the circuit breaker is disabled. */
  failureThreshold: number;
  pauseMs: number;
  summaryTokens: number;
  /** A compaction aims to leave at most this many tokens (see COMPACTION_MARGIN); it never leaves more than tokenLimit. */
  ceiling: number;
  maxTurnsOverLimit: number;
  clock: () => number;
  maxThreads: number;
  cacheBytes: number;
}

function modelNameOf(model: CompactingSupervisorOptions["model"]): string {
  if (model === undefined) return DEFAULT_MODEL;
  if (typeof model === "string") {
    if (model.trim() === "") throw invalidArgument("model", model, 'a model name such as "gpt-4o", or a chat model');
    return model;
  }
  if (typeof model === "object" && model !== null && typeof (model as { invoke?: unknown }).invoke === "function") {
    const candidate = model as unknown as { model?: unknown; modelName?: unknown };
    const name = candidate.model ?? candidate.modelName;
    return typeof name === "string" && name ? name : DEFAULT_MODEL;
  }
  throw invalidArgument("model", model, 'a model name such as "gpt-4o", or a chat model');
}

function limit(parameter: string, value: unknown, window: number): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw invalidArgument(parameter, value, "a positive number of tokens, or a fraction (0 < x <= 1) of the model's context window");
  }
  const tokens = value <= 1 ? Math.floor(value * window) : Math.floor(value);
  if (tokens < 100) throw invalidArgument(parameter, value, "at least 100 tokens once resolved");
  return tokens;
}

export function resolveOptions(options: CompactingSupervisorOptions): ResolvedOptions {
  if (typeof options !== "object" || options === null) {
    throw new CompactionError({ code: "INVALID_ARGUMENT", parameter: "options", value: options, message: "options must be an object with at least tokenLimit" });
  }
  const modelName = modelNameOf(options.model);
  const info = resolveModel(modelName);
  if (options.contextWindow !== undefined && (!Number.isInteger(options.contextWindow) || options.contextWindow < 100)) {
    throw invalidArgument("contextWindow", options.contextWindow, "an integer number of tokens >= 100");
  }
  const window = options.contextWindow ?? info.contextWindow;
  if (!info.known && options.contextWindow === undefined) {
    for (const [parameter, value] of [["tokenLimit", options.tokenLimit], ["hardLimit", options.hardLimit]] as const) {
      if (typeof value === "number" && value > 0 && value <= 1) {
        throw new CompactionError({
          code: "INVALID_ARGUMENT",
          parameter: "model",
          value: modelName,
          message: `${parameter} ${value} is a fraction of the context window, but model ${JSON.stringify(modelName)} is not one whose window this library knows: give ${parameter} in tokens, or pass contextWindow.`,
        });
      }
    }
  }
  const tokenLimit = limit("tokenLimit", options.tokenLimit, window);
  const hardLimit = limit("hardLimit", options.hardLimit ?? DEFAULT_HARD_LIMIT, window);
  const compactionRatio = validateRatio("compactionRatio", options.compactionRatio ?? DEFAULT_COMPACTION_RATIO);
  const compactionTarget = validateRatio("compactionTarget", options.compactionTarget ?? DEFAULT_COMPACTION_TARGET);
  if (options.keepTokens !== undefined && (!Number.isInteger(options.keepTokens) || options.keepTokens < 0)) {
    throw invalidArgument("keepTokens", options.keepTokens, "a non-negative integer number of tokens");
  }
  const recoveryRatio = validateRatio("recoveryRatio", options.recoveryRatio ?? DEFAULT_RECOVERY_RATIO);
  if (options.background !== undefined && typeof options.background !== "boolean") throw invalidArgument("background", options.background, "true or false");
  for (const hook of ["onCompaction", "onCompactionError", "onCompactionOutcome"] as const) {
    if (options[hook] !== undefined && typeof options[hook] !== "function") throw invalidArgument(hook, options[hook], "a function");
  }
  if (options.summarizer !== undefined && typeof (options.summarizer as Summarizer)?.summarize !== "function") {
    throw invalidArgument("summarizer", options.summarizer, "an object with summarize() (ExtractiveSummarizer, LlmSummarizer)");
  }
  const byRatio = options.compactionRatio !== undefined || options.keepTokens !== undefined;
  const summaryShare = options.compactionRatio !== undefined ? RATIO_SUMMARY_SHARE : DEFAULT_SUMMARY_SHARE;
  // The default budget never asks the summarizer for more than it can write.
  const summarizerMaxTokens = options.summarizer ? (options.summarizer.maxTokens ?? DEFAULT_SUMMARIZER_MAX_TOKENS) : defaultSummarizerMaxTokens();
  const summaryTokens = options.summaryTokens ?? Math.max(256, Math.min(summarizerMaxTokens, Math.round(tokenLimit * summaryShare)));
  if (!Number.isInteger(summaryTokens) || summaryTokens < 64) throw invalidArgument("summaryTokens", summaryTokens, "an integer >= 64");
  const breaker = options.circuitBreaker ?? {};
  if (breaker !== false && (typeof breaker !== "object" || breaker === null || Array.isArray(breaker))) {
    throw invalidArgument("circuitBreaker", breaker, "an object { failureThreshold, pauseMs } or false");
  }
  const failureThreshold = breaker === false ? Infinity : (breaker.failureThreshold ?? DEFAULT_FAILURE_THRESHOLD);
  if (breaker !== false && (!Number.isInteger(failureThreshold) || failureThreshold < 1)) {
    throw invalidArgument("circuitBreaker.failureThreshold", failureThreshold, "an integer >= 1");
  }
  const pauseMs = breaker === false ? 0 : (breaker.pauseMs ?? DEFAULT_PAUSE_MS);
  if (typeof pauseMs !== "number" || !Number.isFinite(pauseMs) || pauseMs < 0) {
    throw invalidArgument("circuitBreaker.pauseMs", pauseMs, "a number of milliseconds >= 0");
  }
  const clock = breaker === false ? Date.now : (breaker.clock ?? Date.now);
  if (typeof clock !== "function") throw invalidArgument("circuitBreaker.clock", clock, "a function returning milliseconds");
  const maxTurnsOverLimit = options.maxTurnsOverLimit ?? DEFAULT_MAX_TURNS_OVER_LIMIT;
  if (!Number.isInteger(maxTurnsOverLimit) || maxTurnsOverLimit < 1) throw invalidArgument("maxTurnsOverLimit", maxTurnsOverLimit, "an integer >= 1");
  const maxThreads = options.maxThreads ?? DEFAULT_MAX_THREADS;
  if (!Number.isInteger(maxThreads) || maxThreads < 1) throw invalidArgument("maxThreads", maxThreads, "an integer >= 1");
  const cacheBytes = options.cacheBytes ?? DEFAULT_CACHE_BYTES;
  if (!Number.isInteger(cacheBytes) || cacheBytes < 0) throw invalidArgument("cacheBytes", cacheBytes, "a non-negative integer number of bytes");
  const targetTokens = byRatio ? undefined : Math.floor(tokenLimit * compactionTarget);
  return {
    cacheBytes,
    tokenLimit,
    ceiling: Math.max(Math.floor(tokenLimit * (1 - COMPACTION_MARGIN)), targetTokens ?? 0),
    maxTurnsOverLimit,
    maxThreads,
    hardLimit: Math.max(hardLimit, tokenLimit),
    compactionRatio,
    keepTokens: options.keepTokens,
    targetTokens,
    recoveryRatio,
    modelName,
    background: options.background ?? true,
    failureThreshold,
    pauseMs,
    clock,
    summaryTokens,
  };
}
