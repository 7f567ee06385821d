/**
 * The one place a count is compared with a policy's limits: over the limit (the trigger every runtime compacts on)
 * and past the hard limit (the window at risk, when a turn waits for its compaction).
 */
import type { CompactionPolicy } from "./policy.js";

/**
 * Whether a context of `tokens` is over the policy's limit: the trigger every entry point compacts on (the wrapper,
 * the script, the in-graph step, the worker). A policy without a limit is never over it.
 */
export function isOverLimit(
  policy: Pick<CompactionPolicy, "tokenLimit" | "triggers">,
  tokens: number,
  messages?: number,
): boolean {
  // A count of messages not known (a size read from the store) is taken as holding: never skip on a guess.
  if (policy.triggers)
    return policy.triggers.some(
      (condition) =>
        (condition.tokens === undefined || tokens >= condition.tokens) &&
        (condition.messages === undefined || messages === undefined || messages >= condition.messages),
    );
  return policy.tokenLimit !== undefined && tokens > policy.tokenLimit;
}

/**
 * Whether a context of `tokens` passes the policy's `hardLimit`: the window at risk, when a turn waits for its
 * compaction (engine/scheduler.ts). A policy without one is never past it.
 */
export function pastHardLimit(policy: Pick<CompactionPolicy, "hardLimit">, tokens: number): boolean {
  return policy.hardLimit !== undefined && tokens > policy.hardLimit;
}
