/**
 * Writing a history a strategy computed from a snapshot of the head, by the rules a summary is written by: only when
 * it shrinks the thread (`NOTHING_TO_SUMMARIZE` otherwise; a summarizing step has already met the ceiling through
 * `compactWithinPolicy`, and a cheap edit — a cleared tool result, a dropped turn — that still leaves the thread over
 * the limit is written all the same: its originals are in the transcript, and the thread is smaller than it was),
 * never over a busy head (`BUSY` / `INTERRUPTED`), a compare-and-swap on the head it was
 * computed from and — when turns landed meanwhile and the snapshot is still the start of the head, unchanged — rebased:
 * the edit followed by what was appended since, verbatim. A head whose snapshot part changed (another compaction, a
 * restore, an edit) takes nothing (`conflict`). The messages the write takes out go to the transcript in the same
 * transaction (writeHistory). Strategies only transform messages; this is their one way to the store.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { threadNotFound } from "../errors.js";
import type { ThreadHead } from "../store/read-head.js";
import { MAX_WRITE_ATTEMPTS, type ManagerSettings } from "./manager-options.js";
import { prefixMismatch } from "./rebase.js";
import { retrying, type Attempt } from "./retry.js";
import { busyCode, type EditOutcome } from "./report.js";
import { outcomeOfWriteError, writeHistory } from "./write-history.js";

/**
 * Write `edited` (computed from `snapshot`) as the thread's head; the caller holds the thread's lock. `metadata`:
 * the checkpoint metadata for the head it replaces.
 */
export async function applyEdit(
  settings: ManagerSettings,
  threadId: string,
  snapshot: ThreadHead,
  edited: readonly BaseMessage[],
  metadata?: (headId: string) => Record<string, unknown>,
): Promise<EditOutcome> {
  const tokens = settings.counter.countMessages(edited);
  const before = settings.counter.countMessages(snapshot.messages);
  if (tokens >= before) {
    return {
      status: "skipped",
      code: "NOTHING_TO_SUMMARIZE",
      reason: `the edited thread would hold ${tokens} tokens, not fewer than its ${before}`,
      attempts: 0,
    };
  }
  return retrying({ attempts: MAX_WRITE_ATTEMPTS }, async (attempt): Promise<Attempt<EditOutcome>> => {
    const head = attempt === 1 ? snapshot : await settings.store.readHead(threadId);
    if (!head) throw threadNotFound(threadId);
    if (head.busyReason)
      return { done: { status: "skipped", code: busyCode(head), reason: head.busyReason, attempts: attempt } };
    const mismatch = prefixMismatch(snapshot.messages, head.messages);
    if (mismatch >= 0) {
      return {
        done: {
          status: "conflict",
          reason: `message ${mismatch} of the edited snapshot changed meanwhile (compacted, restored or edited): the edit was discarded`,
          attempts: attempt,
        },
      };
    }
    const appended = head.messages.length - snapshot.messages.length;
    const messages = [...edited, ...head.messages.slice(snapshot.messages.length)];
    const headId = head.tuple.checkpoint.id;
    try {
      const written = await writeHistory(settings, threadId, messages, {
        expectedCheckpointId: headId,
        knownHead: head,
        metadata: metadata?.(headId),
      });
      return { done: { status: "written", ...written, messages, appended, attempts: attempt } };
    } catch (error) {
      // The one mapping of a lost compare-and-swap (write-history.ts): a busy head is a skip; a moved head, a retry.
      const lost = outcomeOfWriteError(error);
      if (!lost) throw error;
      if (lost.status === "skipped") return { done: { ...lost, attempts: attempt } };
      return {
        again: { status: "conflict", reason: `gave up after ${attempt} attempts: ${lost.reason}`, attempts: attempt },
      };
    }
  });
}
