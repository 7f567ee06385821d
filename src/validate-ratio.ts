import { invalidArgument } from "./errors.js";

/**
 * A share strictly between 0 and 1 (`compactionRatio`, `--ratio`, COMPACTION_RATIO), or INVALID_ARGUMENT naming
 * `parameter` and the value.
 */
/** What a share must be: the one rule of `validateRatio`, for a setting typed as text that is no number at all. */
export const RATIO_RULE = "a number between 0 and 1 (exclusive), e.g. 0.5";

export function validateRatio(parameter: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || value >= 1) {
    throw invalidArgument(parameter, value, RATIO_RULE);
  }
  return value;
}
