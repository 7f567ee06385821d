/**
 * Summarizing a plan: the summarizer runs under a timeout (its signal aborted when it expires), its text is
 * validated, a failure falls back to `fallbackSummarizer` when one is set, and the summary message carries the
 * provenance of what it covers. Writes nothing.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { CompactionError } from "../errors.js";
import {
  createSummaryMessage,
  getSummaryProvenance,
  summaryText,
  type SummaryProvenance,
} from "../messages/summary-message.js";
import { validateHistory } from "../messages/validate.js";
import { validateSummaryText } from "../summarizers/output.js";
import type { LivePrompt, Summarizer, SummarizerUsage } from "../summarizers/types.js";
import { SUMMARY_TIMEOUT_MS, type ManagerSettings } from "./manager-options.js";
import type { CompactionPlan } from "./plan.js";
import type { SkipCode } from "./report.js";
import { addSummarizerTokens, type SummarizerTokens } from "./summarizer-tokens.js";

export interface CompactedMessages {
  /** `[leading system messages, summary, kept messages]`. */
  messages: BaseMessage[];
  summary: BaseMessage;
  plan: CompactionPlan;
  summarizerMs: number;
  /** The summarizer that wrote the summary (the fallback when the first one failed). */
  summarizer: Summarizer;
  /** Why the configured summarizer was passed over for the fallback, if it was. */
  fallbackReason?: string;
  /** Set when the log's reflection failed and its oldest segments retired instead: what failed. */
  reflectionFailed?: string;
  /** The summarizers' own tokens (the failed one's too), when they reported them. */
  summarizerTokens?: SummarizerTokens;
  /** The tokenizer's count of each of `messages`, once the result was counted against the ceiling. */
  counts?: readonly number[];
}

/** A plan summarized that would not end under the ceiling, or why nothing was summarized: nothing to write. */
export interface UnwrittenSummary {
  skipped: string;
  code: SkipCode;
  /** Set when a summary was written (it would not fit). */
  summarizerMs?: number;
  summarizerTokens?: SummarizerTokens;
}

/** What summarizing needs of the manager's settings (a strategy passes its own). */
export type SummarySettings = Pick<
  ManagerSettings,
  "summarizer" | "fallbackSummarizer" | "counter" | "summaryPrefix" | "summaryLog"
> & {
  recall: Pick<ManagerSettings["recall"], "announce">;
  /** Its `tokenLimit` is recorded with the summary (the provenance's `limit`). */
  policy?: Pick<ManagerSettings["policy"], "tokenLimit">;
};

/**
 * `prompt`: the prompt the agent's model read last, given to the summarizer with a segment of the log.
 * `signal`: the caller stops (a worker shutting down): the summary in flight is abandoned at once, its summarizer's
 * own signal aborted, nothing written, no fallback tried.
 * @throws CompactionError SUMMARIZER_FAILED (nothing to write), INVALID_HISTORY.
 */
export async function summarizePlan(
  settings: SummarySettings,
  plan: CompactionPlan,
  replacedCheckpointId: string | undefined,
  { signal, prompt }: { signal?: AbortSignal; prompt?: LivePrompt } = {},
): Promise<CompactedMessages> {
  const previous = plan.previousSummary ? getSummaryProvenance(plan.previousSummary) : undefined;
  const started = performance.now();
  let summarizer = settings.summarizer;
  let fallbackReason: string | undefined;
  // A log: the summarizer writes the new segment for the span, the earlier segments read-only, within a segment's
  // budget (engine/summary-log.ts, loaded with a log's first segment).
  const log = settings.summaryLog === "append" ? await import("./summary-log.js") : undefined;
  const earlierSegments = log ? log.logText(plan.previousSummary) : "";
  const task: SummaryTask = log
    ? {
        ...(prompt ? { prompt } : {}),
        earlierSegments,
        budget: log.segmentBudget(
          plan.tokens.summaryBudget,
          earlierSegments ? settings.counter.countText(earlierSegments) : 0,
        ),
      }
    : {
        previousSummary: plan.previousSummary && summaryText(plan.previousSummary),
        previousCoveredMessages: previous?.coveredMessages,
        budget: plan.tokens.summaryBudget,
      };
  let tokens: SummarizerTokens | undefined;
  const onUsage = (usage: SummarizerUsage) => {
    // A custom summarizer's figures that are not counts are left out (never a NaN in the report).
    const counts = [usage.inputTokens, usage.outputTokens, usage.cachedInputTokens ?? 0];
    if (!counts.every((count) => Number.isFinite(count) && count >= 0)) return;
    tokens = addSummarizerTokens(tokens, {
      input: usage.inputTokens,
      output: usage.outputTokens,
      cachedInput: usage.cachedInputTokens ?? 0,
      calls: 1,
    });
  };
  // The summarizer, or the fallback once the summarizer failed: for the summary, and for a reflection of the log.
  const summarize = async (messages: BaseMessage[], given: SummaryTask): Promise<string> => {
    try {
      return await runSummarizer(summarizer, messages, given, signal, onUsage);
    } catch (error) {
      if (
        signal?.aborted ||
        !settings.fallbackSummarizer ||
        summarizer === settings.fallbackSummarizer ||
        !CompactionError.isInstance(error) ||
        error.code !== "SUMMARIZER_FAILED"
      )
        throw error;
      fallbackReason = error.message;
      summarizer = settings.fallbackSummarizer;
      return runSummarizer(summarizer, messages, given, signal, onUsage);
    }
  };
  const text = await summarize(plan.summarize, task);
  const summarizerMs = performance.now() - started;
  const ids = plan.summarize.map((message) => message.id).filter((id): id is string => typeof id === "string");
  const span = {
    messages: plan.summarize.length,
    firstCoveredId: plan.summarize[0]?.id ?? null,
    lastCoveredId: plan.summarize.at(-1)?.id ?? null,
  };
  // The reflection that condenses the older segments, when the log passes its budget: the same summarizer, folding
  // them in as it folds a previous summary. One that fails (the fallback too) leaves the new segment to land, the
  // oldest segments retired instead (their messages are in the transcript), and says so in the report.
  let reflectionFailed: string | undefined;
  const condense = async (texts: readonly string[], messages: number, budget: number) => {
    try {
      return await summarize([], { previousSummary: texts.join("\n\n"), previousCoveredMessages: messages, budget });
    } catch (error) {
      if (signal?.aborted) throw error;
      reflectionFailed = `the reflection of ${texts.length} older segments failed (${summarizer.name}): ${error instanceof Error ? error.message : String(error)}`;
      return undefined;
    }
  };
  const appended = log
    ? await log.appendSegment(
        plan.previousSummary,
        text,
        span,
        plan.tokens.summaryBudget,
        (part) => settings.counter.countText(part),
        condense,
      )
    : undefined;
  const summary = createSummaryMessage(
    appended?.blocks ?? text,
    {
      replacedCheckpointId: replacedCheckpointId ?? null,
      coveredMessages: plan.summarize.length + (previous?.coveredMessages ?? 0),
      coveredTokens:
        plan.tokens.summarized -
        (plan.previousSummary ? settings.counter.countMessage(plan.previousSummary) : 0) +
        (previous?.coveredTokens ?? 0),
      firstCoveredId: previous?.firstCoveredId ?? plan.summarize[0]?.id ?? null,
      lastCoveredId: plan.summarize.at(-1)?.id ?? null,
      coveredIds: ids,
      previousSummaryId: plan.previousSummary?.id ?? null,
      summarizer: summarizer.name,
      model: summarizer.model ?? null,
      ...(fallbackReason ? { fallbackReason } : {}),
      ...(settings.policy?.tokenLimit !== undefined ? { limit: settings.policy.tokenLimit } : {}),
      ...pinsOf(plan),
      ...(appended
        ? {
            segments: appended.segments,
            retiredMessages: appended.retiredMessages,
            condensations: appended.condensations,
          }
        : {}),
    },
    undefined,
    { searchable: settings.recall.announce, prefix: settings.summaryPrefix },
  );
  const result = [...plan.system, summary, ...plan.keep];
  const problems = validateHistory(result);
  if (problems.length > 0) {
    throw new CompactionError({
      code: "INVALID_HISTORY",
      message: `the compacted history would be invalid: ${problems[0]!.message}`,
    });
  }
  return {
    messages: result,
    summary,
    plan,
    summarizerMs,
    summarizer,
    fallbackReason,
    ...(reflectionFailed ? { reflectionFailed } : {}),
    ...(tokens ? { summarizerTokens: tokens } : {}),
  };
}

/** The provenance's `pins`, when the plan moves pinned messages after the summary and keeps a message after them. */
function pinsOf(plan: CompactionPlan): Pick<SummaryProvenance, "pins"> {
  const keptId = plan.keep[plan.pinned.length]?.id;
  const followedId = plan.lastBeforeCut?.id;
  if (plan.pinned.length === 0 || !keptId || !followedId) return {};
  return { pins: { ids: plan.pinned.flatMap((message) => (message.id ? [message.id] : [])), keptId, followedId } };
}

/**
 * What the summarizer is asked: the summary it folds in, or for a segment the earlier segments it reads; its
 * budget; the live prompt.
 */
interface SummaryTask {
  previousSummary?: string;
  earlierSegments?: string;
  previousCoveredMessages?: number;
  budget: number;
  prompt?: LivePrompt;
}

async function runSummarizer(
  summarizer: Summarizer,
  messages: BaseMessage[],
  task: SummaryTask,
  stop: AbortSignal | undefined,
  onUsage: (usage: SummarizerUsage) => void,
): Promise<string> {
  const timeoutMs = summarizer.timeoutMs ?? SUMMARY_TIMEOUT_MS;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let stopped: (() => void) | undefined;
  const timeout = new Promise<never>((_, reject) => {
    const fail = (error: CompactionError) => {
      controller.abort(error);
      reject(error);
    };
    timer = setTimeout(
      () =>
        fail(
          new CompactionError({
            code: "SUMMARIZER_FAILED",
            value: timeoutMs,
            message: `the ${summarizer.name} summarizer did not answer within ${timeoutMs} ms (its timeoutMs)`,
          }),
        ),
      timeoutMs,
    );
    stopped = () =>
      fail(
        new CompactionError({
          code: "SUMMARIZER_FAILED",
          message: "the summary was abandoned: the compaction was stopped; nothing was written",
        }),
      );
    if (stop?.aborted) stopped();
    else stop?.addEventListener("abort", stopped, { once: true });
  });
  try {
    const text = await Promise.race([
      summarizer.summarize({
        previousSummary: task.previousSummary,
        previousCoveredMessages: task.previousCoveredMessages,
        ...(task.earlierSegments === undefined ? {} : { earlierSegments: task.earlierSegments }),
        messages,
        tokenBudget: task.budget,
        ...(task.prompt ? { prompt: task.prompt } : {}),
        signal: controller.signal,
        onUsage,
      }),
      timeout,
    ]);
    if (typeof text !== "string") {
      throw new CompactionError({
        code: "SUMMARIZER_FAILED",
        value: text,
        message: `the summarizer returned ${typeof text}, not text`,
      });
    }
    return validateSummaryText(text, task.budget);
  } catch (error) {
    if (CompactionError.isInstance(error)) throw error;
    throw new CompactionError({
      code: "SUMMARIZER_FAILED",
      message: `the summarizer failed: ${error instanceof Error ? error.message : String(error)}`,
      cause: error,
    });
  } finally {
    clearTimeout(timer);
    if (stopped) stop?.removeEventListener("abort", stopped);
  }
}
