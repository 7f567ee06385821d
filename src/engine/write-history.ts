/**
 * The force-write: a replacement checkpoint whose `messages` channel is the new history with its
 * version bumped, written through the store's compare-and-swap (store/thread-store.ts) so it lands only
 * on the head that was read, and only if that head is idle. The messages it takes out of the head are indexed for
 * recall in the same transaction.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { ReplaceOutcome } from "../store/thread-store.js";
import { recallChanges } from "../store/recall-index/entries.js";
import { CompactionError, threadNotFound } from "../errors.js";
import { validateHistory } from "../messages/validate.js";
import type { ManagerSettings } from "./manager-options.js";
import type { ThreadHead } from "../store/read-head.js";
import type { StoredCheckpoint } from "../store/thread-store.js";

/**
 * Write `messages` as the thread's head, the caller holding the thread's lock: the library's one way to write a head
 * (a summary, a strategy's edit, the archive, a recovery, a restore). `knownHead`: the head just read (to avoid
 * deserializing the thread twice); the compare-and-swap still checks, inside the write transaction, that it is the
 * head. `recovery`: a turn that failed is recovered from — its head is replaced even with pending writes, its other
 * channels copied from `base`, and what left `base`'s history indexed (store/thread-store.ts).
 * @throws CompactionError THREAD_NOT_FOUND, THREAD_BUSY, WRITE_CONFLICT, INVALID_HISTORY.
 */
export async function writeHistory(
  settings: ManagerSettings,
  threadId: string,
  messages: readonly BaseMessage[],
  {
    expectedCheckpointId,
    metadata,
    knownHead,
    recovery,
  }: {
    expectedCheckpointId?: string;
    metadata?: Record<string, unknown>;
    knownHead?: ThreadHead;
    recovery?: { base: StoredCheckpoint };
  } = {},
): Promise<{ checkpointId: string; previousCheckpointId: string }> {
  const problems = validateHistory(messages);
  if (problems.length > 0) {
    throw new CompactionError({
      code: "INVALID_HISTORY",
      value: problems,
      message: `refusing to write an invalid history: ${problems[0]!.message}`,
    });
  }
  const head = knownHead ?? (await settings.store.readHead(threadId));
  if (!head) throw threadNotFound(threadId);
  const headId = head.tuple.checkpoint.id;
  if (expectedCheckpointId !== undefined && headId !== expectedCheckpointId) {
    throw new CompactionError({
      code: "WRITE_CONFLICT",
      value: expectedCheckpointId,
      message: `thread ${threadId}: the head is ${headId}, not the expected ${expectedCheckpointId}`,
    });
  }
  if (head.busyReason && !recovery) {
    throw new CompactionError({
      code: "THREAD_BUSY",
      value: threadId,
      message: `thread ${threadId} is not idle: ${head.busyReason}`,
    });
  }
  const replaced = recovery?.base ?? { tuple: head.tuple, messages: head.messages };
  const outcome = await settings.store.replaceHead({
    threadId,
    head: head.tuple,
    messages,
    metadata,
    ...(recovery ? { base: recovery.base.tuple, ignorePendingWrites: true } : {}),
    recall: recallChanges(threadId, replaced.tuple.checkpoint.id, replaced.messages, messages),
  });
  if (outcome.status === "written") return { checkpointId: outcome.checkpointId, previousCheckpointId: headId };
  throw writeOutcomeError(threadId, outcome);
}

/**
 * The one mapping of a compare-and-swap that did not land to its error: THREAD_BUSY (pending writes) or
 * WRITE_CONFLICT (the head moved). `outcomeOfWriteError` maps them back to a report's status.
 */
export function writeOutcomeError(
  threadId: string,
  outcome: Exclude<ReplaceOutcome, { status: "written" }>,
): CompactionError {
  if (outcome.status === "busy")
    return new CompactionError({
      code: "THREAD_BUSY",
      value: threadId,
      message: `thread ${threadId} is not idle: ${outcome.reason}`,
    });
  return new CompactionError({
    code: "WRITE_CONFLICT",
    value: outcome.headCheckpointId,
    message: `thread ${threadId}: ${outcome.reason}`,
  });
}

/** What a write that lost (THREAD_BUSY, WRITE_CONFLICT) means for a report: `skipped` or `conflict`; undefined for any other error. */
export function outcomeOfWriteError(
  error: unknown,
): { status: "skipped"; code: "BUSY"; reason: string } | { status: "conflict"; reason: string } | undefined {
  if (!CompactionError.isInstance(error)) return undefined;
  if (error.code === "THREAD_BUSY") return { status: "skipped", code: "BUSY", reason: error.message };
  if (error.code === "WRITE_CONFLICT") return { status: "conflict", reason: error.message };
  return undefined;
}
