/**
 * What the in-graph runtime tells of a summary it applied: `onCompaction`, and the graph's "custom" stream (a UI's
 * marker: the node's `config.writer`, the middleware's `runtime.writer`).
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { MeasuredContext } from "../../engine/calibration.js";
import { rewrittenTokens } from "../../engine/prompt-cache.js";
import type { CompactedMessages } from "../../engine/summarize-plan.js";
import type { TokenCounter } from "../../tokens/token-counter.js";
import type { CompactionStreamEvent, InGraphCompactionEvent, InGraphOptions } from "./in-graph-options.js";

export interface AppliedSummary {
  threadId: string | undefined;
  /** The state before and after the update, each as measured. */
  before: readonly BaseMessage[];
  after: readonly BaseMessage[];
  measuredBefore: MeasuredContext;
  measuredAfter: MeasuredContext;
  /** Messages appended after the summarized snapshot, carried over. */
  appended: number;
  /** Whether the summary was computed from an earlier snapshot, off the model call. */
  background: boolean;
  compacted: CompactedMessages;
}

export function announceCompaction(
  options: Pick<InGraphOptions, "onCompaction">,
  config: unknown,
  counter: TokenCounter,
  applied: AppliedSummary,
): void {
  const { before, after, measuredBefore, measuredAfter, compacted } = applied;
  const kept = new Set(after.map((message) => message.id));
  const event: InGraphCompactionEvent = {
    threadId: applied.threadId,
    messagesBefore: before.length,
    messagesAfter: after.length,
    tokensBefore: measuredBefore.tokens,
    tokensAfter: measuredAfter.tokens,
    background: applied.background,
    appended: applied.appended,
    summaryId: compacted.summary.id!,
    removed: before.filter((message) => !kept.has(message.id)).length,
    rewrittenTokens: rewrittenTokens(before, after, counter, measuredBefore.ratio, measuredAfter.each),
    ...(compacted.summarizerTokens ? { summarizerTokens: compacted.summarizerTokens } : {}),
    ...(compacted.plan.keptLess ? { keptLess: compacted.plan.keptLess } : {}),
    ...(compacted.reflectionFailed ? { reflectionFailed: compacted.reflectionFailed } : {}),
  };
  options.onCompaction?.(event);
  (config as { writer?: (chunk: CompactionStreamEvent) => void } | undefined)?.writer?.({
    type: "compaction",
    ...event,
  });
}
