/**
 * Compaction by a strategy or pipeline (the wrapper's `strategy` option): apply it to the thread's head and
 * force-write the result with the same compare-and-swap as a summary. Messages a strategy removed from the history
 * without a summary covering them get a removal marker (a summary message whose provenance names them and the
 * checkpoint that holds them), so nothing leaves the history unaccounted for.
 */
import { BaseMessage } from "@langchain/core/messages";
import { threadNotFound } from "../errors.js";
import type { HistoryManager } from "../engine/history-manager.js";
import { busyCode, type CompactionReport } from "../engine/report.js";
import { addSummarizerTokens, type SummarizerTokens } from "../engine/summarizer-tokens.js";
import { rewrittenTokens } from "../engine/prompt-cache.js";
import { createSummaryMessage, getSummaryProvenance } from "../messages/summary-message.js";
import type { Strategy, ThreadStrategy } from "./types.js";
import type { TokenCounter } from "../tokens/token-counter.js";

export interface StrategyCompaction {
  /** Its policy sets the budget (where a compaction aims to end); its store reads and writes the thread. */
  manager: HistoryManager;
  strategy: Strategy;
  threadId: string;
}

/** The messages of `before` that `after` neither keeps (by id) nor covers with a summary. */
function uncovered(before: readonly BaseMessage[], after: readonly BaseMessage[]): BaseMessage[] {
  const kept = new Set(after.map((message) => message.id).filter((id): id is string => typeof id === "string"));
  const covered = new Set<string>();
  for (const message of after) {
    const provenance = getSummaryProvenance(message);
    if (!provenance) continue;
    for (const id of provenance.coveredIds) covered.add(id);
    if (provenance.previousSummaryId) covered.add(provenance.previousSummaryId);
  }
  return before.filter(
    (message) => typeof message.id === "string" && !kept.has(message.id) && !covered.has(message.id),
  );
}

/**
 * Insert a removal marker after the leading system messages. A marker already there (from an earlier removal) is
 * folded into the new one, as a running summary folds its predecessor, so markers never pile up.
 */
function withMarker(
  messages: BaseMessage[],
  removed: BaseMessage[],
  strategy: string,
  headId: string,
  counter: TokenCounter,
): BaseMessage[] {
  let at = 0;
  while (at < messages.length && messages[at]!.getType() === "system" && !getSummaryProvenance(messages[at])) at++;
  const previous =
    messages[at] && getSummaryProvenance(messages[at])?.summarizer === strategy ? messages[at] : undefined;
  const earlier = previous ? getSummaryProvenance(previous)!.coveredMessages : 0;
  const marker = createSummaryMessage(
    `${removed.length + earlier} earlier message(s) were removed from the context by ${strategy}; they remain in the checkpoint history (latest: ${headId}).`,
    {
      replacedCheckpointId: headId,
      coveredMessages: removed.length + earlier,
      coveredTokens: counter.countMessages(removed),
      firstCoveredId: removed[0]?.id ?? null,
      lastCoveredId: removed.at(-1)?.id ?? null,
      coveredIds: removed.map((message) => message.id!),
      previousSummaryId: previous?.id ?? null,
      summarizer: strategy,
      model: null,
    },
  );
  if (previous) return [...messages.slice(0, at), marker, ...messages.slice(at + 1)];
  while (at < messages.length && getSummaryProvenance(messages[at])) at++;
  return [...messages.slice(0, at), marker, ...messages.slice(at)];
}

/** `strategy`, able to compact a stored thread with itself (the wrapper's `strategy`). */
export function threadStrategy(strategy: Strategy): ThreadStrategy {
  return {
    name: strategy.name,
    description: strategy.description,
    apply: (messages, context) => strategy.apply(messages, context),
    compactThread: (manager, threadId) => compactWithStrategy({ manager, strategy, threadId }),
  };
}

export async function compactWithStrategy({
  manager,
  strategy,
  threadId,
}: StrategyCompaction): Promise<CompactionReport> {
  const { counter, policy } = manager;
  const budget = policy.targetAfter;
  if (budget === undefined) throw new Error("compactWithStrategy needs a policy with a tokenLimit");
  const head = await manager.store.readHead(threadId);
  if (!head) throw threadNotFound(threadId);
  const headId = head.tuple.checkpoint.id;
  const base = {
    threadId,
    previousCheckpointId: headId,
    messagesBefore: head.messages.length,
    summarizer: strategy.name,
    attempts: 1,
  };
  if (head.busyReason) return { ...base, status: "skipped", code: busyCode(head), reason: head.busyReason };
  const started = performance.now();
  // The strategy transforms; a summarizing step asks the engine, so it summarizes as every entry point does.
  const summaries: Array<SummarizerTokens | undefined> = [];
  const compact = async (messages: readonly BaseMessage[], replacedCheckpointId?: string) => {
    const compacted = await manager.compactWithinPolicy(messages, {}, replacedCheckpointId);
    summaries.push(compacted.summarizerTokens);
    return compacted;
  };
  const { messages, report } = await strategy.apply(head.messages, {
    budget,
    counter,
    replacedCheckpointId: headId,
    compact,
  });
  if (report.changed === 0)
    return {
      ...base,
      status: "skipped",
      code: "NOTHING_TO_SUMMARIZE",
      reason: report.note,
      tokensBefore: report.tokensBefore,
    };
  const removed = uncovered(head.messages, messages);
  const result = removed.length > 0 ? withMarker(messages, removed, strategy.name, headId, counter) : messages;
  const summarizerMs = performance.now() - started;
  const summarizerTokens = summaries.reduce(addSummarizerTokens, undefined);
  const writeStarted = performance.now();
  // The engine writes: the ceiling, a busy head, the compare-and-swap, the rebase onto turns that landed meanwhile.
  const outcome = await manager.applyEdit(threadId, head, result, (replaced) => ({
    compaction: { replacedCheckpointId: replaced, strategy: strategy.name, removed: removed.length },
  }));
  const attempts = Math.max(1, outcome.attempts);
  if (outcome.status === "skipped")
    return {
      ...base,
      attempts,
      status: "skipped",
      code: outcome.code,
      reason: outcome.reason,
      tokensBefore: report.tokensBefore,
      summarizerMs,
      ...(summarizerTokens ? { summarizerTokens } : {}),
    };
  if (outcome.status === "conflict")
    return {
      ...base,
      attempts,
      status: "conflict",
      reason: outcome.reason,
      tokensBefore: report.tokensBefore,
      summarizerMs,
    };
  const summary = outcome.messages.find(
    (message) =>
      getSummaryProvenance(message)?.summarizer !== strategy.name && getSummaryProvenance(message) !== undefined,
  );
  return {
    ...base,
    attempts,
    status: "compacted",
    previousCheckpointId: outcome.previousCheckpointId,
    reason: `${strategy.name}: ${report.note}${outcome.appended > 0 ? `; rebased onto a head ${outcome.appended} message(s) longer` : ""}`,
    newCheckpointId: outcome.checkpointId,
    tokensBefore: report.tokensBefore,
    tokensAfter: counter.countMessages(outcome.messages),
    rewrittenTokens: rewrittenTokens(head.messages, outcome.messages, counter),
    messagesAfter: outcome.messages.length,
    ...(summary
      ? {
          summaryId: summary.id!,
          ...(getSummaryProvenance(summary)!.fallbackReason
            ? { fallbackReason: getSummaryProvenance(summary)!.fallbackReason }
            : {}),
        }
      : {}),
    ...(outcome.appended > 0 ? { rebased: { snapshotCheckpointId: headId, appendedMessages: outcome.appended } } : {}),
    summarizerMs,
    ...(summarizerTokens ? { summarizerTokens } : {}),
    writeMs: performance.now() - writeStarted,
  };
}
