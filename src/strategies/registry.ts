/**
 * The strategy registry: `createStrategy(name, options)` and `listStrategies()`.
 */
import { CompactionError } from "../errors.js";
import { argument } from "../options/check.js";
import { strategy } from "../options/strategy-fields.js";
import {
  CLEAR_TOOL_RESULTS_DESCRIPTION,
  clearToolResults,
  type ClearToolResultsOptions,
} from "./clear-tool-results.js";
import { createPipeline } from "./pipeline.js";
import { SLIDING_WINDOW_DESCRIPTION, slidingWindow, type SlidingWindowOptions } from "./sliding-window.js";
import { SMART_TRIM_DESCRIPTION, smartTrim, type SmartTrimOptions } from "./smart-trim.js";
import { NONE_DESCRIPTION, none, SUMMARIZE_DESCRIPTION, summarize, type SummarizeOptions } from "./summarize.js";
import type { Strategy, ThreadStrategy } from "./types.js";
import { threadStrategy } from "./strategy-compaction.js";

export interface StrategyOptions {
  "clear-tool-results": ClearToolResultsOptions;
  "sliding-window": SlidingWindowOptions;
  "smart-trim": SmartTrimOptions;
  summarize: SummarizeOptions;
  none: Record<string, never>;
}

export type StrategyName = keyof StrategyOptions;

const REGISTRY: { [K in StrategyName]: { description: string; create: (options: StrategyOptions[K]) => Strategy } } = {
  "clear-tool-results": { description: CLEAR_TOOL_RESULTS_DESCRIPTION, create: clearToolResults },
  "sliding-window": { description: SLIDING_WINDOW_DESCRIPTION, create: slidingWindow },
  "smart-trim": { description: SMART_TRIM_DESCRIPTION, create: smartTrim },
  summarize: { description: SUMMARIZE_DESCRIPTION, create: summarize },
  none: { description: NONE_DESCRIPTION, create: none },
};

/** @throws CompactionError INVALID_ARGUMENT for an unknown name, an unknown option or a bad value. */
export function createStrategy<K extends StrategyName>(name: K, options?: StrategyOptions[K]): ThreadStrategy {
  if (typeof name !== "string" || !(name in REGISTRY)) {
    throw new CompactionError({
      code: "INVALID_ARGUMENT",
      parameter: "name",
      value: name,
      message: `unknown strategy ${JSON.stringify(name)}; one of ${Object.keys(REGISTRY).join(", ")}`,
    });
  }
  // Each strategy checks its options (options/strategy-fields.ts), an option it does not know among them.
  return threadStrategy(REGISTRY[name].create((options ?? {}) as never));
}

/** Every strategy name with its one-line description. */
export function listStrategies(): Array<{ name: StrategyName; description: string }> {
  return (Object.keys(REGISTRY) as StrategyName[]).map((name) => ({ name, description: REGISTRY[name].description }));
}

/** A strategy, a pipeline of them, or a name: what the wrapper and the hook accept. */
export type StrategyInput = Strategy | readonly (Strategy | StrategyName)[] | StrategyName;

export function resolveStrategy(input: StrategyInput, parameter = "strategy"): Strategy {
  if (typeof input === "string") return createStrategy(input);
  if (Array.isArray(input))
    return createPipeline(
      input.map((step: Strategy | StrategyName) => (typeof step === "string" ? createStrategy(step) : step)),
    );
  return argument(parameter, input, strategy) as Strategy;
}
