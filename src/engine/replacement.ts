/**
 * The force-write: a replacement checkpoint whose `messages` channel is the new history with its
 * version bumped, written through the store's compare-and-swap (checkpoint/compare-and-swap.ts) so it lands only
 * on the head that was read, and only if that head is idle. The messages it takes out of the head are indexed for
 * recall in the same transaction.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { copyCheckpoint, type CheckpointMetadata, type CheckpointTuple } from "@langchain/langgraph-checkpoint";
import type { CompareAndSwapWriter, ReplacementBuilder } from "../store/compare-and-swap.js";
import { maxVersion } from "../store/compare-and-swap.js";
import { idAfter } from "../store/ids.js";
import { recallChanges } from "../store/recall-index/entries.js";
import { CompactionError, threadNotFound } from "../errors.js";
import { validateHistory } from "../messages/validate.js";
import type { ManagerSettings } from "./manager-options.js";
import { readThreadHead, type ThreadHead } from "../store/read-head.js";

/**
 * A copy of `base` (the head itself, or for recovery the last checkpoint before a failed turn) with `messages`
 * replaced and its version bumped, written after `head`: the id right after the head's, step + 1,
 * `source: "update"`. `baseVersion` feeds the saver's `getNextVersion`.
 */
export function buildReplacement(
  head: CheckpointTuple,
  base: CheckpointTuple,
  messages: readonly BaseMessage[],
  extraMetadata: Record<string, unknown> | undefined,
): { id: string; baseVersion: number | string | undefined; build: ReplacementBuilder } {
  const step = ((head.metadata?.step as number | undefined) ?? -1) + 1;
  const id = idAfter(head.checkpoint.id, step);
  const baseVersion = maxVersion({ head: maxVersion(head.checkpoint.channel_versions) ?? 0, base: maxVersion(base.checkpoint.channel_versions) ?? 0 });
  const build: ReplacementBuilder = (version) => {
    const checkpoint = copyCheckpoint(base.checkpoint);
    checkpoint.id = id;
    checkpoint.ts = new Date().toISOString();
    checkpoint.channel_values = { ...checkpoint.channel_values, messages: [...messages] };
    checkpoint.channel_versions = { ...checkpoint.channel_versions, messages: version };
    const metadata = {
      source: "update",
      step,
      parents: (base.metadata?.parents as Record<string, string> | undefined) ?? {},
      ...extraMetadata,
    } as CheckpointMetadata;
    return { checkpoint, metadata, newVersions: { messages: version } };
  };
  return { id, baseVersion, build };
}

/**
 * Write `messages` as the thread's head, the caller holding the thread's lock. `knownHead`: the head just read (to
 * avoid deserializing the thread twice); the compare-and-swap still checks, inside the write transaction, that it
 * is the head.
 * @throws CompactionError THREAD_NOT_FOUND, THREAD_BUSY, WRITE_CONFLICT, INVALID_HISTORY.
 */
export async function writeHistory(
  settings: ManagerSettings,
  writer: CompareAndSwapWriter,
  threadId: string,
  messages: readonly BaseMessage[],
  { expectedCheckpointId, metadata, knownHead }: { expectedCheckpointId?: string; metadata?: Record<string, unknown>; knownHead?: ThreadHead } = {},
): Promise<{ checkpointId: string; previousCheckpointId: string }> {
  const problems = validateHistory(messages);
  if (problems.length > 0) {
    throw new CompactionError({ code: "INVALID_HISTORY", value: problems, message: `refusing to write an invalid history: ${problems[0]!.message}` });
  }
  const head = knownHead ?? (await readThreadHead(settings.checkpointer, threadId, settings.graph));
  if (!head) throw threadNotFound(threadId);
  const headId = head.tuple.checkpoint.id;
  if (expectedCheckpointId !== undefined && headId !== expectedCheckpointId) {
    throw new CompactionError({
      code: "WRITE_CONFLICT",
      value: expectedCheckpointId,
      message: `thread ${threadId}: the head is ${headId}, not the expected ${expectedCheckpointId}`,
    });
  }
  if (head.busyReason) {
    throw new CompactionError({ code: "THREAD_BUSY", value: threadId, message: `thread ${threadId} is not idle: ${head.busyReason}` });
  }
  const replacement = buildReplacement(head.tuple, head.tuple, messages, metadata);
  const outcome = await writer.write({
    threadId,
    expectedCheckpointId: headId,
    proposedVersion: settings.checkpointer.getNextVersion(replacement.baseVersion as number | undefined),
    build: replacement.build,
    ...(settings.recall.enabled ? { recall: recallChanges(threadId, headId, head.messages, messages) } : {}),
  });
  if (outcome.status === "busy") {
    throw new CompactionError({ code: "THREAD_BUSY", value: threadId, message: `thread ${threadId} is not idle: ${outcome.reason}` });
  }
  if (outcome.status === "conflict") {
    throw new CompactionError({ code: "WRITE_CONFLICT", value: outcome.headCheckpointId, message: `thread ${threadId}: ${outcome.reason}` });
  }
  return { checkpointId: replacement.id, previousCheckpointId: headId };
}
