/**
 * Context strategies: pure transformations of a history toward a token budget. `apply` never mutates its input
 * (messages it changes are replaced by new objects) and never breaks a tool call from its results.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { CompactionPolicy } from "../engine/policy.js";
import type { Summarizer } from "../summarizers/types.js";
import type { TokenCounter } from "../tokens/token-counter.js";

export interface StrategyContext {
  /** The target, in tokens, for the whole history. */
  budget: number;
  /** Counter for the budget. @default a shared TokenCounter for "gpt-4o" */
  counter?: TokenCounter;
  /** The checkpoint the history comes from, recorded in a summary's provenance when the result is stored. */
  replacedCheckpointId?: string;
  /**
   * The compaction policy of the runtime applying the strategy (the wrapper's): a summarizing step then cuts and
   * budgets its summary as every other entry point does.
   */
  policy?: CompactionPolicy;
  /** The summarizer a summarizing step uses (the runtime's). @default the step's own */
  summarizer?: Summarizer;
  /** A summary written by the step tells the model the search_history tool finds compacted messages. @default false */
  announceSearch?: boolean;
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
