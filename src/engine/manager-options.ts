/**
 * The HistoryManager's options: what a caller may set, and their validation into the settings every part of a
 * compaction (planning, summarizing, writing) reads. Every bad value is an INVALID_ARGUMENT naming the option.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { CompactionError, invalidArgument } from "../errors.js";
import { validatePredicate, type PinPredicate } from "../messages/pins.js";
import { DEFAULT_SUMMARY_ROLE, type SummaryRole } from "../messages/summary-message.js";
import { chooseSummarizer } from "../summarizers/default.js";
import { ExtractiveSummarizer } from "../summarizers/extractive.js";
import { validateWording, type SummaryWording } from "../summarizers/wording.js";
import { resolveRecall, type RecallOptions, type RecallSettings } from "./recall-settings.js";

export { resolveRecall, SEARCH_TOOL_ENVIRONMENT, type RecallOptions } from "./recall-settings.js";
export type { CompactOverrides, PrepareOptions } from "./call-options.js";
import type { Summarizer } from "../summarizers/types.js";
import { TokenCounter } from "../tokens/token-counter.js";
import { DEFAULT_SUMMARIZER_MAX_TOKENS, validateSummarizer } from "../summarizers/types.js";
import { threadStoreFor, type ThreadStore } from "../store/thread-store.js";
import { validateKeep } from "./prune.js";
import { Calibration, type TokenCounterFunction, type UsageIgnoredNotice } from "./calibration.js";
import { Notices, type EngineNotice } from "./notices.js";
import { isCompactionPolicy, resolvePolicy, type CompactionPolicy, type CompactionPolicyOptions } from "./policy.js";
import { environmentOf, environmentPolicy } from "./policy-environment.js";
import { modelNameOf, profileWindowOf, type ModelOption } from "../tokens/model-option.js";

export const DEFAULT_MAX_WRITE_ATTEMPTS = 3;
export const DEFAULT_SUMMARY_TIMEOUT_MS = 120_000;
/** How long `compactThread` waits for a gap between turns on a thread busy with a run, by default. */
export const DEFAULT_BUSY_WAIT_MS = 5_000;

export interface HistoryManagerOptions extends Omit<CompactionPolicyOptions, "model">, SummaryWording {
  /** The store holding the threads. */
  checkpointer: BaseCheckpointSaver;
  /**
   * A policy resolved with `resolvePolicy` (shared with other entry points), instead of the policy options
   * (tokenLimit, compactionRatio, compactionTarget, keepTokens, targetTokens, summaryTokens, hardLimit,
   * recoveryRatio, lateness, contextWindow, model), which are then not given.
   */
  policy?: CompactionPolicy;
  /**
   * Default: an LlmSummarizer over `model` when it is a chat model or `"provider:model"` (over `summaryModel` when
   * given), else as `createDefaultSummarizer` decides from `env`.
   */
  summarizer?: Summarizer;
  /**
   * Used when `summarizer` fails (throws, times out, or returns an empty, oversized or error-like text): `"extractive"`
   * or any Summarizer. The summary's provenance and the report name the summarizer that wrote it and why the first
   * one was passed over. @default none (a failure writes nothing)
   */
  fallbackSummarizer?: Summarizer | "extractive";
  /** The chat model an LlmSummarizer writes the summaries with (ignored when `summarizer` is given). */
  summaryModel?: BaseChatModel;
  /**
   * The chat model the summaries come from, as langchain's summarization takes it: an instance, or `"provider:model"`
   * (built with langchain's `initChatModel`); its name picks the tokenizer and the window of fractional limits. A bare
   * name (`"gpt-4o"`) picks only those. `summarizer` wins over it for the summaries. @default "gpt-4o" (the tokenizer)
   */
  model?: ModelOption;
  /** A shared counter (its cache makes repeated counts cheap). */
  counter?: TokenCounter;
  /**
   * The tokens of a list of messages as the application counts them (langchain's `tokenCounter`): every decision
   * counts with it instead of the exact tokenizer and the provider's figures, and a plan's budgets are scaled by its
   * ratio to the tokenizer's count (engine/calibration.ts). @default the exact tokenizer, calibrated by usage figures
   */
  tokenCounter?: TokenCounterFunction;
  /** Messages never summarized, besides those marked with `pinMessage`. */
  pinned?: PinPredicate;
  /** Role of the summary message. @default "human" */
  summaryRole?: SummaryRole;
  /** A summary that takes longer is abandoned and nothing is written. @default 120000 */
  summaryTimeoutMs?: number;
  /** Compare-and-swap attempts before reporting a conflict (and summaries, when the summarized prefix changed). @default 3 */
  maxWriteAttempts?: number;
  /** How long `compactThread` waits for a gap between turns when the head is busy with a run. @default 5000 */
  busyWaitMs?: number;
  /**
   * After each compaction this manager writes, prune the thread to its newest `keepCheckpoints` checkpoints
   * (`pruneThread`: the transcript holds every message first). @default keep every checkpoint
   */
  keepCheckpoints?: number;
  /**
   * The recall index: every message a write takes out of the head is indexed in the same transaction, so
   * `searchHistory` and the `search_history` tool find it. `false` turns it off. @default true
   */
  recall?: boolean | RecallOptions;
  /**
   * Where unset options are read from, as on every runtime: TOKEN_LIMIT, COMPACTION_RATIO and TOKEN_MODEL (the
   * policy: engine/policy.ts, `environmentPolicy`), OPENAI_API_KEY and its settings (the default summarizer),
   * HISTORY_SEARCH_TOOL (recall.announce). The library reads no environment of its own. @default {}
   */
  env?: Record<string, string | undefined>;
  /**
   * Told once per model when a reply's `usage_metadata` figure is not trusted (missing, not positive, or more than
   * 4× from the tokenizer's count): counts of its threads use the tokenizer (engine/calibration.ts).
   */
  onUsageIgnored?: (notice: UsageIgnoredNotice) => void;
  /**
   * Told when a compaction does less than configured, once per thread: it kept less than `keep` asked for
   * (`KEPT_LESS`), because that much would not have ended under the ceiling. Without it, a process warning
   * (engine/notices.ts). @default process.emitWarning
   */
  onCompactionNotice?: (notice: EngineNotice) => void;
}

/** The options, validated and defaulted. */
export interface ManagerSettings {
  store: ThreadStore;
  policy: CompactionPolicy;
  summarizer: Summarizer;
  fallbackSummarizer?: Summarizer;
  counter: TokenCounter;
  /** Counts what the provider counts where replies carry usage figures (engine/calibration.ts). */
  calibration: Calibration;
  pinned?: PinPredicate;
  summaryRole: SummaryRole;
  /** The line a summary message starts with, when not the library's (wording.ts). */
  summaryPrefix?: string;
  summaryTimeoutMs: number;
  maxWriteAttempts: number;
  busyWaitMs: number;
  recall: RecallSettings;
  keepCheckpoints?: number;
  notices: Notices;
}

const POLICY_KEYS = [
  "tokenLimit",
  "compactionRatio",
  "compactionTarget",
  "keepTokens",
  "targetTokens",
  "summaryTokens",
  "hardLimit",
  "recoveryRatio",
  "lateness",
  "contextWindow",
  "model",
  "trigger",
  "keep",
  "maxTokensBeforeSummary",
  "messagesToKeep",
] as const;

/** @throws CompactionError INVALID_ARGUMENT naming the bad option and its value; MISSING_CHECKPOINTER. */
export function resolveManagerOptions(options: HistoryManagerOptions): ManagerSettings {
  if (typeof options !== "object" || options === null) throw invalidArgument("options", options, "an object");
  const { checkpointer, summarizer } = options;
  if (
    typeof checkpointer !== "object" ||
    checkpointer === null ||
    typeof (checkpointer as BaseCheckpointSaver).getTuple !== "function" ||
    typeof (checkpointer as BaseCheckpointSaver).put !== "function"
  ) {
    throw new CompactionError({
      code: "MISSING_CHECKPOINTER",
      parameter: "checkpointer",
      value: checkpointer,
      message: `checkpointer must be a LangGraph checkpoint saver (MemorySaver, SqliteSaver, PostgresSaver...); got ${checkpointer === undefined ? "none" : typeof checkpointer}`,
    });
  }
  validateSummarizer(summarizer);
  const summaryTimeoutMs = options.summaryTimeoutMs ?? DEFAULT_SUMMARY_TIMEOUT_MS;
  if (!Number.isFinite(summaryTimeoutMs) || summaryTimeoutMs <= 0) {
    throw invalidArgument("summaryTimeoutMs", summaryTimeoutMs, "a positive number of milliseconds");
  }
  const maxWriteAttempts = options.maxWriteAttempts ?? DEFAULT_MAX_WRITE_ATTEMPTS;
  if (!Number.isInteger(maxWriteAttempts) || maxWriteAttempts < 1) {
    throw invalidArgument("maxWriteAttempts", maxWriteAttempts, "an integer >= 1");
  }
  const summaryRole = options.summaryRole ?? DEFAULT_SUMMARY_ROLE;
  if (!["human", "system", "ai"].includes(summaryRole)) {
    throw invalidArgument("summaryRole", summaryRole, '"human", "system" or "ai"');
  }
  const pinned = validatePredicate(options.pinned);
  if (options.policy !== undefined && !isCompactionPolicy(options.policy))
    throw invalidArgument("policy", options.policy, "a policy made by resolvePolicy()");
  const given = POLICY_KEYS.filter((key) => options[key] !== undefined);
  if (options.policy && given.length > 0)
    throw invalidArgument(
      given[0]!,
      options[given[0]!],
      `left out when a resolved policy is given (the policy sets it)`,
    );
  const wording = validateWording(options);
  const env = environmentOf(options.env);
  // `env` means what it means to every runtime: the policy options not given are read from it (engine/policy.ts).
  const { options: merged, names } = options.policy
    ? { options: {}, names: {} }
    : environmentPolicy({ ...options, model: modelNameOf(options.model) }, env);
  const model = merged.model;
  const counter = options.counter ?? new TokenCounter({ model: options.policy?.model ?? model });
  const resolvedSummarizer = chooseSummarizer(summarizer, {
    env,
    counter,
    model: options.summaryModel ?? options.model,
    wording,
  }).summarizer;
  const policy =
    options.policy ??
    resolvePolicy(
      {
        tokenLimit: merged.tokenLimit,
        compactionRatio: merged.compactionRatio,
        compactionTarget: options.compactionTarget,
        keepTokens: options.keepTokens,
        targetTokens: options.targetTokens,
        trigger: options.trigger,
        keep: options.keep,
        maxTokensBeforeSummary: options.maxTokensBeforeSummary,
        messagesToKeep: options.messagesToKeep,
        summaryTokens: options.summaryTokens,
        hardLimit: options.hardLimit,
        recoveryRatio: options.recoveryRatio,
        lateness: options.lateness,
        contextWindow: options.contextWindow ?? profileWindowOf(options.model),
        model: model ?? counter.model,
      },
      { summarizerMaxTokens: resolvedSummarizer.maxTokens ?? DEFAULT_SUMMARIZER_MAX_TOKENS, names },
    );
  const fallback = options.fallbackSummarizer;
  if (
    fallback !== undefined &&
    fallback !== "extractive" &&
    typeof (fallback as Summarizer)?.summarize !== "function"
  ) {
    throw invalidArgument("fallbackSummarizer", fallback, '"extractive" or an object with summarize()');
  }
  if (options.tokenCounter !== undefined && typeof options.tokenCounter !== "function")
    throw invalidArgument(
      "tokenCounter",
      options.tokenCounter,
      "a function of the messages returning their tokens (or a promise of them)",
    );
  if (options.onUsageIgnored !== undefined && typeof options.onUsageIgnored !== "function")
    throw invalidArgument("onUsageIgnored", options.onUsageIgnored, "a function");
  if (options.onCompactionNotice !== undefined && typeof options.onCompactionNotice !== "function")
    throw invalidArgument("onCompactionNotice", options.onCompactionNotice, "a function");
  const busyWaitMs = options.busyWaitMs ?? DEFAULT_BUSY_WAIT_MS;
  if (typeof busyWaitMs !== "number" || !Number.isFinite(busyWaitMs) || busyWaitMs < 0) {
    throw invalidArgument("busyWaitMs", busyWaitMs, "a number of milliseconds >= 0");
  }
  const recall = resolveRecall(options.recall, env);
  const keepCheckpoints =
    options.keepCheckpoints === undefined ? undefined : validateKeep(options.keepCheckpoints, "keepCheckpoints");
  return {
    store: threadStoreFor(checkpointer, { recallLanguage: recall.language }),
    policy,
    summarizer: resolvedSummarizer,
    fallbackSummarizer: fallback === "extractive" ? new ExtractiveSummarizer({ counter }) : fallback,
    counter,
    calibration: new Calibration(counter, options.onUsageIgnored, options.tokenCounter),
    pinned,
    summaryRole,
    ...(wording.summaryPrefix === undefined ? {} : { summaryPrefix: wording.summaryPrefix }),
    summaryTimeoutMs,
    maxWriteAttempts,
    busyWaitMs,
    recall,
    ...(keepCheckpoints === undefined ? {} : { keepCheckpoints }),
    notices: new Notices(options.onCompactionNotice),
  };
}
