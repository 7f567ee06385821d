/**
 * `langgraph-compaction/strategies`: named strategies (clear tool results, sliding window, smart trim, summarize),
 * pipelines of them, and the `preModelHook` that trims what the model sees without writing the thread
 * (docs/strategies-and-pins.md). The wrapper's `strategy` option takes what these return.
 */
export type { Strategy, StrategyContext, StrategyReport, StrategyResult, ThreadStrategy } from "./strategies/types.js";
export {
  createStrategy,
  listStrategies,
  type StrategyInput,
  type StrategyName,
  type StrategyOptions,
} from "./strategies/registry.js";
export { createPipeline } from "./strategies/pipeline.js";
export type { ClearToolResultsOptions } from "./strategies/clear-tool-results.js";
export type { SlidingWindowOptions } from "./strategies/sliding-window.js";
export type { SmartTrimOptions } from "./strategies/smart-trim.js";
export type { SummarizeOptions } from "./strategies/summarize.js";
export { createContextTrimHook, type ContextTrimHookOptions } from "./strategies/context-trim-hook.js";
export { isPinned } from "./messages/pins.js";
