/**
 * CompactingSupervisor options: validated once, at construction, with errors that name the option and the value.
 */
import { argument, parseOptions } from "../../options/check.js";
import { WRAPPER_SCHEMA } from "../../options/runtime-fields.js";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import type { ArchiveOptions } from "../../archive/archive.js";
import type { StrategyInput } from "../../strategies/registry.js";
import type { CompactedReport, CompactionReport } from "../../engine/report.js";
import type { RecallOptions } from "../../engine/history-manager.js";
import type { SummaryRole } from "../../messages/summary-message.js";
import type { SummaryLog } from "../../engine/summary-log.js";
import { createCircuitBreaker, type CircuitBreaker, type CircuitBreakerOptions } from "../../engine/circuit-breaker.js";
import type { CompactionPolicy, CompactionPolicyOptions } from "../../engine/policy.js";
import { policyFromEnv, policyOfOptions } from "../../engine/policy-environment.js";
import { chooseSummarizer, type SummarizerChoice } from "../../summarizers/default.js";
import { wordingOf, type SummaryWording } from "../../summarizers/wording.js";
import type { HistoryManagerOptions } from "../../engine/manager-options.js";
import { DEFAULT_CACHE_BYTES } from "../../tokens/message-cache.js";
import { DEFAULT_SUMMARIZER_MAX_TOKENS, type Summarizer } from "../../summarizers/types.js";
import { TOKEN_LIMIT_RULE } from "../../options/fields.js";
import { number } from "../../options/rules.js";
import type { EngineNotice } from "../../engine/notices.js";
import { DEFAULT_MAX_THREADS } from "./thread-records.js";

export type { CircuitBreakerOptions } from "../../engine/circuit-breaker.js";
export interface CompactingSupervisorOptions
  extends
    Omit<CompactionPolicyOptions, "model" | "targetTokens">,
    SummaryWording,
    Pick<HistoryManagerOptions, "tokenCounter"> {
  /**
   * Compact after a turn that leaves the thread above this many tokens; a value <= 1 is a fraction of the window.
   * @default TOKEN_LIMIT from `env` (required when that is not set)
   */
  tokenLimit?: number;
  /** @default ExtractiveSummarizer, offline (an LlmSummarizer over ChatOpenAI when `env` holds OPENAI_API_KEY) */
  summarizer?: Summarizer;
  /**
   * The chat model the summaries come from, as langchain's summarization takes it: an instance, or `"provider:model"`
   * (built with langchain's `initChatModel`); its name picks the tokenizer and the context window of fractional
   * limits. A bare name ("gpt-4o") picks only those. `summarizer` wins over it for the summaries.
   * @default TOKEN_MODEL from `env`, else "gpt-4o" (the tokenizer)
   */
  model?: string | BaseChatModel;
  /**
   * Where unset options are read from: TOKEN_LIMIT, COMPACTION_RATIO and TOKEN_MODEL (as the script reads them),
   * OPENAI_API_KEY and the rest for the default summarizer, HISTORY_SEARCH_TOOL. The library reads no environment of
   * its own: pass the process's environment here to configure a wrapper the way the script is. @default {} (nothing is read)
   */
  env?: Record<string, string | undefined>;
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
  /** A log of segments (`"append"`) or one running summary (`"rewrite"`), as for `HistoryManager`. @default "rewrite" */
  summaryLog?: SummaryLog;
  /** A summary slower than this is abandoned; nothing is written. @default 120000 */
  summaryTimeoutMs?: number;
  /** Compare-and-swap attempts before a compaction reports a conflict (as `HistoryManager`'s). @default 3 */
  maxWriteAttempts?: number;
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
   * Called once, as the wrapper starts its first compaction, with which summarizer compactions use and why
   * (`SUMMARIZER_CHOSEN`: the one given, or the default chosen from OPENAI_API_KEY and the installed packages;
   * `compactionHealth(threadId).summarizer` says the same at any time); and once per model whose reply carried a
   * usage figure that is not trusted (`USAGE_IGNORED`: docs/token-counting.md); once per thread when a compaction
   * kept less than `keep` asked for (`KEPT_LESS`). Without it, `KEPT_LESS` is a process warning.
   */
  onCompactionNotice?: (notice: CompactionNotice) => void | Promise<void>;
  /**
   * The most threads whose state (last count, summary in flight, turns over the limit) the wrapper keeps; the least
   * recently used idle ones are forgotten first (their next turn reads the thread once). @default 10000
   */
  maxThreads?: number;
  /**
   * Bytes the token counter's per-message cache may hold (texts over 16 KiB kept as fingerprints). With `maxThreads`,
   * this bounds what the wrapper itself keeps in memory, whatever the number of threads and message sizes (see the
   * docs/benchmarks.md, "Memory"). @default 16 MiB
   */
  cacheBytes?: number;
  /**
   * After each turn and each compaction that lands, delete the thread's checkpoints the transcript makes redundant,
   * keeping the newest `keepCheckpoints` (`pruneThread`: every message of a deleted checkpoint is in a kept one or in
   * the transcript first). Runs off the turn's path (inside it with `background: false`); `flush()` waits for it.
   * @default keep every checkpoint
   */
  keepCheckpoints?: number;
}

/** Which summarizer compactions use, and why: said once. */
export interface SummarizerChosenNotice extends SummarizerChoice {
  code: "SUMMARIZER_CHOSEN";
  message: string;
}

/**
 * Something the wrapper says once: which summarizer compactions use (`SUMMARIZER_CHOSEN`); once per model, that a
 * reply's usage figure was not trusted and its threads are counted by the tokenizer (`USAGE_IGNORED`); once per
 * thread, that a compaction kept less than `keep` asked for (`KEPT_LESS`: engine/notices.ts).
 */
export type CompactionNotice = SummarizerChosenNotice | EngineNotice;

/** The wrapper's options, validated and defaulted (internal: the policy is public as `CompactingSupervisor.policy`). */
export interface ResolvedOptions {
  policy: CompactionPolicy & { tokenLimit: number; hardLimit: number; ceiling: number; targetAfter: number };
  summarizer: Summarizer;
  summarizerChoice: SummarizerChoice;
  background: boolean;
  /** The circuit breaker the `circuitBreaker` option asks for (one that never opens with `false`). */
  breaker: CircuitBreaker;
  maxThreads: number;
  cacheBytes: number;
  keepCheckpoints?: number;
}

export function resolveOptions(options: CompactingSupervisorOptions): ResolvedOptions {
  parseOptions("CompactingSupervisor", WRAPPER_SCHEMA, options);
  const env = options.env ?? {};
  // A limit is required: in code, in TOKEN_LIMIT, or as a trigger (the policy merges them: policy-environment.ts).
  const tokenLimit = options.tokenLimit ?? policyFromEnv(env).tokenLimit;
  if (tokenLimit === undefined && options.trigger === undefined && options.maxTokensBeforeSummary === undefined)
    argument("tokenLimit", tokenLimit, REQUIRED_LIMIT);
  const { summarizer, choice: summarizerChoice } = chooseSummarizer(options.summarizer, {
    env,
    model: options.model,
    wording: wordingOf(options),
  });
  const policy = policyOfOptions(options, env, {
    summarizerMaxTokens: summarizer.maxTokens ?? DEFAULT_SUMMARIZER_MAX_TOKENS,
    summaryLog: options.summaryLog,
  }) as ResolvedOptions["policy"];
  const maxThreads = options.maxThreads ?? DEFAULT_MAX_THREADS;
  const { keepCheckpoints } = options;
  return {
    ...(keepCheckpoints === undefined ? {} : { keepCheckpoints }),
    policy,
    summarizer,
    summarizerChoice,
    cacheBytes: options.cacheBytes ?? DEFAULT_CACHE_BYTES,
    maxThreads,
    background: options.background ?? true,
    breaker: createCircuitBreaker(options.circuitBreaker, maxThreads),
  };
}

/** The wrapper compacts over a limit: one of the ways to say it is needed. */
const REQUIRED_LIMIT = number(`${TOKEN_LIMIT_RULE} (or trigger, or TOKEN_LIMIT in \`env\`)`, { above: 0 });
