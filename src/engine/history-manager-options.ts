/**
 * The options HistoryManager takes, documented. Their rules are options/fields.ts `MANAGER_FIELDS` (the compiler
 * checks that every option here has one).
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import type { PinPredicate } from "../messages/pins.js";
import type { SummaryRole } from "../messages/summary-message.js";
import type { SummaryLog } from "./summary-log.js";
import type { SummaryWording } from "../summarizers/wording.js";
import type { Summarizer } from "../summarizers/types.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import type { ModelOption } from "../tokens/model-option.js";
import type { RecallOptions } from "./recall-settings.js";
import type { TokenCounterFunction, UsageIgnoredNotice } from "./calibration.js";
import type { EngineNotice } from "./notices.js";
import type { CompactionPolicy, CompactionPolicyOptions } from "./policy.js";

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
  /**
   * `"append"`: the summary is a log of segments. Each compaction appends one and leaves the earlier ones byte for
   * byte. Past the summary's budget, a reflection condenses them into one (engine/summary-log.ts). `"rewrite"`: one
   * running summary, rewritten at every compaction. @default "rewrite"
   */
  summaryLog?: SummaryLog;
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
