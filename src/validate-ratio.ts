import { invalidArgument } from "./errors.js";

/**
 * A share strictly between 0 and 1 (`compactionRatio`, `--ratio`, COMPACTION_RATIO), or INVALID_ARGUMENT naming
 * `parameter` and the value.
 */
export function validateRatio(parameter: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || value >= 1) {
    throw invalidArgument(parameter, value, "a number between 0 and 1 (exclusive), e.g. 0.5");
  }
  return value;
}
