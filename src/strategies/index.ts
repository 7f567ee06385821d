/** Strategies, pipelines and the within-turn hook: the public names of strategies/. */
export type { Strategy, StrategyContext, StrategyReport, StrategyResult } from "./types.js";
export { createStrategy, listStrategies, type StrategyInput, type StrategyName, type StrategyOptions } from "./registry.js";
export { createPipeline } from "./pipeline.js";
export type { ClearToolResultsOptions } from "./clear-tool-results.js";
export type { SlidingWindowOptions } from "./sliding-window.js";
export type { SmartTrimOptions } from "./smart-trim.js";
export type { SummarizeOptions } from "./summarize.js";
export { createContextTrimHook, type ContextTrimHookOptions } from "./context-trim-hook.js";
