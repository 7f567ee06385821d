/**
 * The HistoryManager's options: what a caller may set, and their validation into the settings every part of a
 * compaction (planning, summarizing, writing) reads. Every bad value is an INVALID_ARGUMENT naming the option.
 */
import { argument, parseOptions } from "../options/check.js";
import { MANAGER_FIELDS, POLICY_KEYS } from "../options/fields.js";
import { absent } from "../options/rules.js";
import type { HistoryManagerOptions } from "./history-manager-options.js";

export type { HistoryManagerOptions } from "./history-manager-options.js";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { CompactionError } from "../errors.js";
import type { PinPredicate } from "../messages/pins.js";
import { DEFAULT_SUMMARY_ROLE, type SummaryRole } from "../messages/summary-message.js";
import type { SummaryLog } from "./summary-log.js";
import { chooseSummarizer } from "../summarizers/default.js";
import { ExtractiveSummarizer } from "../summarizers/extractive.js";
import { wordingOf } from "../summarizers/wording.js";
import { resolveRecall, type RecallSettings } from "./recall-settings.js";

export { resolveRecall, SEARCH_TOOL_ENVIRONMENT, type RecallOptions } from "./recall-settings.js";
export type { CompactOverrides, PrepareOptions } from "./call-options.js";
import type { Summarizer } from "../summarizers/types.js";
import { TokenCounter } from "../tokens/token-counter.js";
import { DEFAULT_SUMMARIZER_MAX_TOKENS } from "../summarizers/types.js";
import { threadStoreFor, type ThreadStore } from "../store/thread-store.js";
import { Calibration } from "./calibration.js";
import { Notices } from "./notices.js";
import type { CompactionPolicy } from "./policy.js";
import { policyOfOptions, tokenModelOf } from "./policy-environment.js";

export const DEFAULT_MAX_WRITE_ATTEMPTS = 3;
export const DEFAULT_SUMMARY_TIMEOUT_MS = 120_000;
/** How long `compactThread` waits for a gap between turns on a thread busy with a run, by default. */
export const DEFAULT_BUSY_WAIT_MS = 5_000;

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
  summaryLog: SummaryLog;
  /** The line a summary message starts with, when not the library's (wording.ts). */
  summaryPrefix?: string;
  summaryTimeoutMs: number;
  maxWriteAttempts: number;
  busyWaitMs: number;
  recall: RecallSettings;
  keepCheckpoints?: number;
  notices: Notices;
}

/** @throws CompactionError INVALID_ARGUMENT naming the bad option and its value; MISSING_CHECKPOINTER. */
export function resolveManagerOptions(options: HistoryManagerOptions): ManagerSettings {
  const { checkpointer, summarizer } = parseOptions("HistoryManager", MANAGER_FIELDS, options);
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
  const summaryTimeoutMs = options.summaryTimeoutMs ?? DEFAULT_SUMMARY_TIMEOUT_MS;
  const maxWriteAttempts = options.maxWriteAttempts ?? DEFAULT_MAX_WRITE_ATTEMPTS;
  const summaryRole = options.summaryRole ?? DEFAULT_SUMMARY_ROLE;
  const given = POLICY_KEYS.find((key) => options[key] !== undefined);
  if (options.policy && given !== undefined)
    argument(given, options[given], absent("left out when a resolved policy is given (the policy sets it)"));
  const wording = wordingOf(options);
  const env = options.env ?? {};
  // `env` means what it means to every runtime: the policy options not given are read from it (engine/policy.ts).
  const counter =
    options.counter ?? new TokenCounter({ model: options.policy?.model ?? tokenModelOf(options.model, env) });
  const resolvedSummarizer = chooseSummarizer(summarizer, {
    env,
    counter,
    model: options.summaryModel ?? options.model,
    wording,
  }).summarizer;
  const policy =
    options.policy ??
    policyOfOptions(options, env, {
      summarizerMaxTokens: resolvedSummarizer.maxTokens ?? DEFAULT_SUMMARIZER_MAX_TOKENS,
      summaryLog: options.summaryLog,
      model: counter.model,
    });
  const fallback = options.fallbackSummarizer;
  const busyWaitMs = options.busyWaitMs ?? DEFAULT_BUSY_WAIT_MS;
  const recall = resolveRecall(options.recall, env);
  const { keepCheckpoints, pinned } = options;
  return {
    store: threadStoreFor(checkpointer, { recallLanguage: recall.language }),
    policy,
    summarizer: resolvedSummarizer,
    fallbackSummarizer: fallback === "extractive" ? new ExtractiveSummarizer({ counter }) : fallback,
    counter,
    calibration: new Calibration(counter, options.onUsageIgnored, options.tokenCounter),
    pinned,
    summaryRole,
    summaryLog: options.summaryLog ?? "rewrite",
    ...(wording.summaryPrefix === undefined ? {} : { summaryPrefix: wording.summaryPrefix }),
    summaryTimeoutMs,
    maxWriteAttempts,
    busyWaitMs,
    recall,
    ...(keepCheckpoints === undefined ? {} : { keepCheckpoints }),
    notices: new Notices(options.onCompactionNotice),
  };
}
