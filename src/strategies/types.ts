/**
 * Context strategies: pure transformations of a history toward a token budget. `apply` never mutates its input
 * (messages it changes are replaced by new objects) and never breaks a tool call from its results.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { CompactedMessages, UnwrittenSummary } from "../engine/summarize-plan.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import type { HistoryManager } from "../engine/history-manager.js";
import type { CompactionReport } from "../engine/report.js";
import { satisfying } from "../options/rules.js";

export interface StrategyContext {
  /** The target, in tokens, for the whole history. */
  budget: number;
  /** Counter for the budget. @default a shared TokenCounter for "gpt-4o" */
  counter?: TokenCounter;
  /** The checkpoint the history comes from, recorded in a summary's provenance when the result is stored. */
  replacedCheckpointId?: string;
  /**
   * The engine's plan, fit and summary, given by the runtime applying the strategy (`HistoryManager.compactWithinPolicy`
   * of the wrapper's manager): a summarizing step calls it, so its cut, its summary's budget, role, timeout and
   * fallback summarizer, and the ceiling it must end under are those of every other entry point.
   */
  compact?: (
    messages: readonly BaseMessage[],
    replacedCheckpointId?: string,
  ) => Promise<CompactedMessages | UnwrittenSummary>;
}

export interface StrategyReport {
  strategy: string;
  tokensBefore: number;
  tokensAfter: number;
  /** Messages replaced (cleared, clipped, summarized) or removed from the view. */
  changed: number;
  /** One sentence: what was done, or why nothing was. */
  note: string;
  /** Pipelines: the report of each step that ran. */
  steps?: StrategyReport[];
}

export interface StrategyResult {
  messages: BaseMessage[];
  report: StrategyReport;
}

export interface Strategy {
  readonly name: string;
  /** One line for `listStrategies()`. */
  readonly description: string;
  apply(messages: readonly BaseMessage[], context: StrategyContext): Promise<StrategyResult>;
}

/**
 * A strategy that compacts a stored thread with itself (strategy-compaction.ts): what `createStrategy` and
 * `createPipeline` make, and what the wrapper's `strategy` takes — the wrapper loads no strategy code of its own.
 */
export interface ThreadStrategy extends Strategy {
  /** Applies the strategy to the thread's head and writes the result as a summary is written. */
  compactThread(manager: HistoryManager, threadId: string): Promise<CompactionReport>;
}

export const THREAD_STRATEGY = satisfying<ThreadStrategy>(
  (value) =>
    typeof (value as { apply?: unknown } | null)?.apply === "function" &&
    typeof (value as { compactThread?: unknown } | null)?.compactThread === "function",
  'a strategy or a pipeline (createStrategy("clear-tool-results"), createPipeline([...]) from langgraph-compaction/strategies)',
);
