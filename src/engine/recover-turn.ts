/**
 * Recovery after a turn failed because the request outgrew the model's window: the head is whatever the failed run
 * left (its input, maybe partial work, an error write). A checkpoint made from the last one before the failed turn,
 * its history compacted harder, is written after that head, so the turn can be retried from an idle thread and its
 * input appears exactly once. The failed attempt stays in the history.
 */
import { argument } from "../options/check.js";
import { ratio } from "../options/rules.js";
import type { BaseMessage } from "@langchain/core/messages";
import { CompactionError } from "../errors.js";
import { compactedFields } from "./apply-prepared.js";
import type { CompactOverrides, ManagerSettings } from "./manager-options.js";
import type { CompactionPlan } from "./plan.js";
import type { CompactionReport } from "./report.js";
import { summarizePlan } from "./summarize-plan.js";
import { outcomeOfWriteError, writeHistory } from "./write-history.js";

export async function recoverTurn(
  settings: ManagerSettings,
  plan: (messages: readonly BaseMessage[], overrides: CompactOverrides) => CompactionPlan,
  threadId: string,
  baseCheckpointId: string,
  compactionRatio: number,
): Promise<CompactionReport> {
  argument("compactionRatio", compactionRatio, ratio);
  const { store } = settings;
  const current = await store.readHead(threadId);
  const base = await store.readCheckpoint(threadId, baseCheckpointId);
  if (!current || !base) {
    throw new CompactionError({
      code: "CHECKPOINT_NOT_FOUND",
      value: baseCheckpointId,
      message: `thread ${threadId}: checkpoint ${baseCheckpointId} not found`,
    });
  }
  const history = base.messages;
  const currentId = current.tuple.checkpoint.id;
  const report = {
    threadId,
    previousCheckpointId: currentId,
    messagesBefore: history.length,
    tokensBefore: settings.counter.countMessages(history),
    summarizer: settings.summarizer.name,
    attempts: 1,
  };
  const cut = plan(history, { compactionRatio });
  if (!cut.executable) return { ...report, status: "skipped", code: "NOTHING_TO_SUMMARIZE", reason: cut.reason };
  const compacted = await summarizePlan(settings, cut, baseCheckpointId);
  const started = performance.now();
  try {
    // The messages summarized out of the pre-turn history are held by the checkpoint before the failed turn.
    const written = await writeHistory(settings, threadId, compacted.messages, {
      expectedCheckpointId: currentId,
      knownHead: current,
      recovery: { base },
      metadata: {
        compaction: {
          replacedCheckpointId: currentId,
          recoveredFrom: baseCheckpointId,
          summarizedMessages: cut.summarize.length,
          summaryId: compacted.summary.id,
        },
      },
    });
    return {
      ...report,
      ...(await compactedFields(
        settings,
        `recovered from an overflowing turn: ${cut.reason}`,
        written.checkpointId,
        compacted,
        started,
        current.messages,
      )),
    };
  } catch (error) {
    const lost = outcomeOfWriteError(error);
    if (lost?.status === "conflict") return { ...report, status: "conflict", reason: lost.reason };
    throw error;
  }
}
