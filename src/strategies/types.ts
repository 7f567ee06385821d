/**
 * Context strategies: pure transformations of a history toward a token budget. `apply` never mutates its input
 * (messages it changes are replaced by new objects) and never breaks a tool call from its results.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { CompactedMessages, UnwrittenSummary } from "../engine/summarize-plan.js";
import type { TokenCounter } from "../tokens/token-counter.js";

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
