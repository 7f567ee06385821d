/**
 * Recovery after a turn failed because the request outgrew the model's window: the head is whatever the failed run
 * left (its input, maybe partial work, an error write). A checkpoint made from the last one before the failed turn,
 * its history compacted harder, is written after that head, so the turn can be retried from an idle thread and its
 * input appears exactly once. The failed attempt stays in the history.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { CompareAndSwapWriter } from "../store/compare-and-swap.js";
import { recallChanges } from "../store/recall-index/entries.js";
import { CompactionError } from "../errors.js";
import { compactedFields } from "./apply-prepared.js";
import type { CompactOverrides, ManagerSettings } from "./manager-options.js";
import type { CompactionPlan } from "./plan.js";
import { buildReplacement } from "./replacement.js";
import type { CompactionReport } from "./report.js";
import { summarizePlan } from "./summarize-plan.js";

export async function recoverTurn(
  settings: ManagerSettings,
  writer: CompareAndSwapWriter,
  plan: (messages: readonly BaseMessage[], overrides: CompactOverrides) => CompactionPlan,
  threadId: string,
  baseCheckpointId: string,
  compactionRatio: number,
): Promise<CompactionReport> {
  const { checkpointer } = settings;
  const current = await checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } });
  const base = await checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: baseCheckpointId } });
  if (!current || !base) {
    throw new CompactionError({ code: "CHECKPOINT_NOT_FOUND", value: baseCheckpointId, message: `thread ${threadId}: checkpoint ${baseCheckpointId} not found` });
  }
  const messages = (base.checkpoint.channel_values as Record<string, unknown>).messages;
  const history = Array.isArray(messages) ? (messages as BaseMessage[]) : [];
  const report = {
    threadId,
    previousCheckpointId: current.checkpoint.id,
    messagesBefore: history.length,
    tokensBefore: settings.counter.countMessages(history),
    summarizer: settings.summarizer.name,
    attempts: 1,
  };
  const cut = plan(history, { compactionRatio });
  if (!cut.executable) return { ...report, status: "skipped", reason: cut.reason };
  const compacted = await summarizePlan(settings, cut, base.checkpoint.id);
  const replacement = buildReplacement(current, base, compacted.messages, {
    compaction: { replacedCheckpointId: current.checkpoint.id, recoveredFrom: base.checkpoint.id, summarizedMessages: cut.summarize.length, summaryId: compacted.summary.id },
  });
  const started = performance.now();
  const outcome = await writer.write({
    threadId,
    expectedCheckpointId: current.checkpoint.id,
    proposedVersion: checkpointer.getNextVersion(replacement.baseVersion as number | undefined),
    ignorePendingWrites: true,
    build: replacement.build,
    // The messages summarized out of the pre-turn history are held by the checkpoint before the failed turn.
    ...(settings.recall.enabled ? { recall: recallChanges(threadId, base.checkpoint.id, history, compacted.messages) } : {}),
  });
  if (outcome.status !== "written") return { ...report, status: "conflict", reason: outcome.reason };
  return { ...report, ...compactedFields(settings, `recovered from an overflowing turn: ${cut.reason}`, replacement.id, compacted, started) };
}
