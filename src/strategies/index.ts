export type { Strategy, StrategyContext, StrategyReport, StrategyResult } from "./types.js";
export { createStrategy, listStrategies, resolveStrategy, type StrategyInput, type StrategyName, type StrategyOptions } from "./registry.js";
export { createPipeline } from "./pipeline.js";
export { clearToolResults, type ClearToolResultsOptions } from "./clear-tool-results.js";
export { slidingWindow, type SlidingWindowOptions } from "./sliding-window.js";
export { smartTrim, type SmartTrimOptions } from "./smart-trim.js";
export { summarize, none, type SummarizeOptions } from "./summarize.js";
export { pinMessage, isPinned, PIN_KEY, type PinPredicate } from "../messages/pins.js";
export { EDIT_KEY, editOf, type EditRecord } from "./edit.js";
