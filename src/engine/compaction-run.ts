/**
 * A compaction of a thread, as HistoryManager runs it: read the head and count it, plan the cut and fit it under the
 * ceiling, summarize (prepare), then apply the summary to the head as it is by then (apply-prepared.ts); a head
 * whose summarized prefix changed meanwhile is read and summarized again, up to `MAX_WRITE_ATTEMPTS` times.
 */
import { argument } from "../options/check.js";
import { text } from "../options/rules.js";
import type { BaseMessage } from "@langchain/core/messages";
import { CompactionError } from "../errors.js";
import { turnOver } from "../slices.js";
import { REPLY_PRIMING_TOKENS } from "../tokens/chat-format.js";
import { applyAttempt, attemptOf, rememberSnapshot, type PreparedCompaction } from "./apply-prepared.js";
import { readHead } from "./read-counted-head.js";
import { sumOf } from "./calibration.js";
import { cutOf, keepAskedOf, planWithin, summaryOverhead, withinPolicy } from "./fit-plan.js";
import {
  BUSY_WAIT_MS,
  writePolicy,
  type CompactOverrides,
  type ManagerSettings,
  type PrepareOptions,
} from "./manager-options.js";
import { keptLessNotice } from "./notices.js";
import { planCompaction, type CompactionPlan } from "./plan.js";
import { isOverLimit } from "./limits.js";
import { busyCode, type CompactionReport, type SkipCode } from "./report.js";
import type { ThreadStore } from "../store/thread-store.js";
import { retrying, type Attempt } from "./retry.js";
import { summarizePlan, type CompactedMessages, type UnwrittenSummary } from "./summarize-plan.js";

/** The cut of `messages` by the policy (or `overrides`); `counts`: the counter's count of each, when at hand. */
export function planWith(
  settings: ManagerSettings,
  messages: readonly BaseMessage[],
  overrides: CompactOverrides = {},
  counts?: readonly number[],
): CompactionPlan {
  return planCompaction(messages, {
    ...cutOf(settings.policy, overrides),
    pinned: settings.pinned,
    counter: settings.counter,
    ...(counts ? { counts } : {}),
  });
}

/** The tokens a summary adds besides its text (header, the search note), per settings: counted once. */
const overheads = new WeakMap<ManagerSettings, number>();

/** See `HistoryManager.fitPlan`. */
export function fitPlan(
  settings: ManagerSettings,
  messages: readonly BaseMessage[],
  given: PrepareOptions = {},
  counts: readonly number[] = settings.counter.countEach(messages),
): { plan: CompactionPlan; estimate: number } | { skipped: string; code: SkipCode } {
  const options = withinPolicy(settings.policy, given);
  const plan = planWith(settings, messages, options, counts);
  const limited = options.maxTokensAfter !== undefined || options.preferTokensAfter !== undefined;
  const keepAsked = keepAskedOf(settings.policy, options);
  if (!plan.executable && !(limited && keepAsked)) return { skipped: plan.reason, code: "NOTHING_TO_SUMMARIZE" };
  let overhead = overheads.get(settings);
  if (overhead === undefined) {
    overhead = summaryOverhead(settings.counter, settings.recall.announce, settings.summaryPrefix);
    overheads.set(settings, overhead);
  }
  if (!limited) return { plan, estimate: plan.tokens.afterEstimate + overhead };
  const replan = (overrides: CompactOverrides) => planWith(settings, messages, overrides, counts);
  const fitted = planWithin(plan, options, overhead, replan, keepAsked);
  if (typeof fitted === "string")
    return { skipped: fitted, code: plan.executable || keepAsked ? "WONT_FIT" : "NOTHING_TO_SUMMARIZE" };
  return { plan: fitted, estimate: fitted.tokens.afterEstimate + overhead };
}

/** See `HistoryManager.compactWithinPolicy`. The result is counted once, against the ceiling (`compacted.counts`). */
export async function compactWithinPolicy(
  settings: ManagerSettings,
  messages: readonly BaseMessage[],
  given: PrepareOptions = {},
  replacedCheckpointId?: string,
  counts?: readonly number[],
): Promise<CompactedMessages | UnwrittenSummary> {
  const { policy, counter } = settings;
  const options = withinPolicy(policy, given);
  // Planning, summarizing and counting the result are phases of their own (slices.ts).
  await turnOver();
  const fitted = fitPlan(settings, messages, given, counts);
  if ("skipped" in fitted) return fitted;
  if (fitted.plan.keptLess && given.threadId !== undefined) {
    const base = policy.triggers?.some((condition) => condition.tokens === undefined)
      ? `90% of the hard limit ${policy.hardLimit}, as the trigger names no tokens`
      : `90% of the trigger's ${policy.tokenLimit} tokens`;
    const why =
      fitted.plan.keptLessWhy === "whole"
        ? "that is the whole thread, so nothing would have been summarized"
        : `that much would not have ended under the ceiling of ${policy.ceiling} tokens (${base}); lower keep or raise the trigger`;
    settings.notices.once(keptLessNotice(given.threadId, fitted.plan.keptLess, why));
  }
  await turnOver();
  const compacted = await summarizePlan(settings, fitted.plan, replacedCheckpointId, {
    signal: given.signal,
    prompt: given.prompt,
  });
  if (options.maxTokensAfter === undefined) return compacted;
  await turnOver();
  compacted.counts = counter.countEach(compacted.messages);
  const after = REPLY_PRIMING_TOKENS + sumOf(compacted.counts);
  if (after <= options.maxTokensAfter) return compacted;
  return {
    code: "WONT_FIT",
    summarizerMs: compacted.summarizerMs,
    ...(compacted.summarizerTokens ? { summarizerTokens: compacted.summarizerTokens } : {}),
    skipped: `the compacted thread would hold ${after} tokens (the summary came out at ${counter.countMessage(compacted.summary)}), not under the limit of ${options.maxTokensAfter}`,
  };
}

/**
 * Read the head (counted once), plan, summarize: the summary ready to apply, or a `skipped` report saying why there
 * is none. `trigger`: skip a thread under the policy's limit. `at`: the snapshot is that checkpoint.
 */
export async function prepareSummary(
  settings: ManagerSettings,
  threadId: string,
  given: PrepareOptions,
  trigger: boolean,
  checkpointId?: unknown,
): Promise<PreparedCompaction | CompactionReport> {
  const at = argument("config.configurable.checkpoint_id", checkpointId, text("a checkpoint id").optional());
  const name = settings.summarizer.name;
  const read = await readHead(settings, threadId, name, 1, at, given.counted).catch((error: unknown) => {
    // The checkpoint a turn ended on, pruned before it was read: the head is the snapshot (a retry, not a failure).
    const pruned = CompactionError.isInstance(error) && error.code === "CHECKPOINT_NOT_FOUND";
    if (given.orHead && at !== undefined && pruned) return readHead(settings, threadId, name, 1);
    throw error;
  });
  const { head, headId, base, ratio, each } = read;
  if (head.busyReason) return { ...base, status: "skipped", code: busyCode(head), reason: head.busyReason };
  const { policy } = settings;
  if (trigger && policy.tokenLimit !== undefined && !isOverLimit(policy, base.tokensBefore, head.messages.length)) {
    const reason = `${base.tokensBefore} tokens, not over the limit of ${policy.tokenLimit}: nothing to compact`;
    return { ...base, status: "skipped", code: "UNDER_LIMIT", reason };
  }
  const options = { tokenRatio: ratio, threadId, ...given };
  const compacted = await compactWithinPolicy(settings, head.messages, options, headId, each);
  if ("skipped" in compacted) {
    // The code, and what a summary that did not fit cost (summarizerMs, summarizerTokens), carried as they are.
    const { skipped: reason, ...outcome } = compacted;
    return { ...base, status: "skipped", reason, ...outcome };
  }
  const prepared: PreparedCompaction = {
    status: "prepared",
    threadId,
    snapshotCheckpointId: headId,
    snapshotLength: head.messages.length,
    prefix: head.messages.slice(0, compacted.plan.prefixLength),
    compacted,
    messagesBefore: base.messagesBefore,
    tokensBefore: base.tokensBefore,
    ...(base.providerUsage ? { providerUsage: base.providerUsage } : {}),
  };
  return rememberSnapshot(prepared, head);
}

/**
 * See `HistoryManager.compactThread`; the caller holds the thread's summary lock. One loop of attempts (retry.ts),
 * nothing nested: each writes the summary onto the head as it is then, and summarizes again only when the head's
 * summarized prefix changed — at most `MAX_WRITE_ATTEMPTS` writes and as many summaries in all.
 */
export async function compactWithRetries(
  settings: ManagerSettings,
  threadId: string,
  overrides: PrepareOptions,
  first?: PreparedCompaction,
): Promise<CompactionReport> {
  const { store, keepCheckpoints } = settings;
  // `first`: a summary the caller already computed (and showed) is the first attempt's.
  let prepared = first;
  const report = await retrying(
    writePolicy(settings, overrides.busyWaitMs ?? BUSY_WAIT_MS, overrides.signal),
    async (attempt): Promise<Attempt<CompactionReport>> => {
      if (!prepared) {
        const fresh = await prepareSummary(settings, threadId, overrides, !overrides.force);
        if (fresh.status !== "prepared") return { done: { ...fresh, attempts: attempt } };
        prepared = fresh;
      }
      const tried = attemptOf(await applyAttempt(settings, prepared, attempt), attempt);
      const { report, prefixChanged } = "done" in tried ? tried.done : "again" in tried ? tried.again : tried.wait;
      if (!prefixChanged)
        return "done" in tried ? { done: report } : "again" in tried ? { again: report } : { wait: report };
      prepared = undefined;
      return { again: { ...report, reason: `gave up after ${attempt} attempts: ${report.reason}`, attempts: attempt } };
    },
  );
  return pruneAfterCompaction(store, keepCheckpoints, report);
}

/**
 * `report`, with the prune that follows a compaction that landed when `keepCheckpoints` is set (engine/prune.ts,
 * loaded then: a thread store that never prunes never loads it).
 */
export async function pruneAfterCompaction(
  store: ThreadStore,
  keep: number | undefined,
  report: CompactionReport,
): Promise<CompactionReport> {
  if (keep === undefined || report.status !== "compacted") return report;
  return (await import("./prune.js")).prunedAfter(store, keep, report);
}
