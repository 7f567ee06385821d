/**
 * auditThread: check, from the store alone, the promise compaction makes about a thread —
 * 1. coverage: every message that was ever in the thread's main conversation is in the head verbatim, or covered by
 *    a summary in the head whose provenance names a checkpoint that still holds it (summaries of summaries are
 *    followed down the chain), or in the thread's transcript (the recall index's stored messages, written by the
 *    write that took it out, or by a prune before the checkpoints holding it went), identical to the original: only
 *    a message that is none of these is lost. A summary whose checkpoint was pruned is fine when everything it
 *    covers is in the transcript;
 * 2. validity: the head passes `validateHistory`;
 * 3. no message appears twice in the head.
 * Read-only. Reads every checkpoint of the thread's root namespace once.
 */
import { BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { requireThreadId, storeErrors, threadNotFound } from "../errors.js";
import { threadStoreFor, type StoredCheckpoint } from "../store/thread-store.js";
import { getSummaryProvenance, isSummaryMessage } from "../messages/summary-message.js";
import { validateHistory, type HistoryProblem } from "../messages/validate.js";
import { editOf } from "../messages/markers.js";
import { deserializeMessage } from "../store/recall-index/message-serde.js";
import type { RecallEntry } from "../store/recall-index/types.js";
import { writtenByLibrary } from "../store/replacement-checkpoint.js";

export type AuditProblemCode =
  | "INVALID_HEAD"
  | "DUPLICATE_IN_HEAD"
  | "LOST_MESSAGE"
  | "ALTERED_MESSAGE"
  | "PROVENANCE_CHECKPOINT_MISSING"
  | "COVERED_MESSAGE_MISSING";

export interface AuditProblem {
  code: AuditProblemCode;
  /** The message or checkpoint concerned. */
  id: string;
  message: string;
}

export interface ThreadAudit {
  threadId: string;
  headCheckpointId: string;
  /** Checkpoints read (the thread's root namespace). */
  checkpoints: number;
  /** Distinct original (non-summary) message ids seen in any checkpoint. */
  messagesEver: number;
  /** Of those, in the head verbatim. */
  inHead: number;
  /** Of those, covered by a summary in the head (and held by the checkpoint its provenance names). */
  covered: number;
  /** Of those, neither in the head nor covered, but in the transcript (the recall index's stored messages). */
  recorded: number;
  /**
   * Of those, removed from the head by the application (a `RemoveMessage`, `updateState`: the checkpoint it left in
   * is not one this library wrote) and still held by the stored checkpoints: not lost, but a prune transcribes them
   * first.
   */
  removedByApplication: number;
  problems: AuditProblem[];
  /** Problems `validateHistory` reports on the head. */
  headProblems: HistoryProblem[];
}

/** What must stay identical for a message to count as "verbatim". */
function fingerprint(message: BaseMessage): string {
  const toolCalls = (message as BaseMessage & { tool_calls?: unknown }).tool_calls ?? null;
  const toolCallId = (message as BaseMessage & { tool_call_id?: unknown }).tool_call_id ?? null;
  return JSON.stringify([message.getType(), message.content, message.name ?? null, toolCalls, toolCallId]);
}

/**
 * @throws CompactionError MISSING_THREAD_ID, THREAD_NOT_FOUND.
 */
export async function auditThread(checkpointer: BaseCheckpointSaver, config: unknown): Promise<ThreadAudit> {
  const threadId = requireThreadId(config, "auditThread");
  const store = threadStoreFor(checkpointer);
  const checkpoints = await storeErrors(threadId, store.listCheckpoints(threadId));
  const byId = new Map<string, StoredCheckpoint>(checkpoints.map((stored) => [stored.tuple.checkpoint.id, stored]));
  const head = checkpoints[0];
  if (!head) throw threadNotFound(threadId);

  const problems: AuditProblem[] = [];
  const headMessages = head.messages;
  const headProblems = validateHistory(headMessages);
  if (headProblems.length > 0) {
    problems.push({
      code: "INVALID_HEAD",
      id: head.tuple.checkpoint.id,
      message: `the head is not a valid history: ${headProblems[0]!.message}`,
    });
  }

  const verbatim = new Map<string, string>();
  // Messages a strategy cleared, clipped or archived in place (same id, the original in an older checkpoint).
  const edited = new Set<string>();
  const inHeadIds = new Set<string>();
  for (const message of headMessages) {
    if (!BaseMessage.isInstance(message) || typeof message.id !== "string") continue;
    if (inHeadIds.has(message.id)) {
      problems.push({
        code: "DUPLICATE_IN_HEAD",
        id: message.id,
        message: `message ${message.id} appears twice in the head`,
      });
    }
    inHeadIds.add(message.id);
    if (editOf(message)) edited.add(message.id);
    else verbatim.set(message.id, fingerprint(message));
  }

  // Ids covered by the head's summaries, each checked against the checkpoint its provenance names.
  const covered = new Map<string, string>();
  const visited = new Set<string>();
  const unsourced: Array<{ summary: BaseMessage; provenance: NonNullable<ReturnType<typeof getSummaryProvenance>> }> =
    [];
  const follow = (summary: BaseMessage): void => {
    const provenance = getSummaryProvenance(summary);
    if (!provenance || visited.has(summary.id ?? "")) return;
    visited.add(summary.id ?? "");
    const source = provenance.replacedCheckpointId ? byId.get(provenance.replacedCheckpointId) : undefined;
    if (!source) {
      // Pruned: what it covers must be in the transcript (checked below, with every message out of the head).
      unsourced.push({ summary, provenance });
      return;
    }
    const held = new Map<string, BaseMessage>();
    for (const message of source.messages) {
      if (BaseMessage.isInstance(message) && typeof message.id === "string") held.set(message.id, message);
    }
    for (const id of provenance.coveredIds) {
      const message = held.get(id);
      if (!message) {
        problems.push({
          code: "COVERED_MESSAGE_MISSING",
          id,
          message: `summary ${summary.id} covers ${id}, but checkpoint ${source.tuple.checkpoint.id} does not hold it`,
        });
        continue;
      }
      if (editOf(message)) edited.add(id);
      else covered.set(id, fingerprint(message));
      // A summary (or removal marker) that was itself summarized later: what it covered is covered too.
      if (getSummaryProvenance(message)) follow(message);
    }
    const previous = provenance.previousSummaryId ? held.get(provenance.previousSummaryId) : undefined;
    if (provenance.previousSummaryId && !previous) {
      problems.push({
        code: "COVERED_MESSAGE_MISSING",
        id: provenance.previousSummaryId,
        message: `summary ${summary.id} folds in ${provenance.previousSummaryId}, but checkpoint ${source.tuple.checkpoint.id} does not hold it`,
      });
    }
    if (previous) follow(previous);
  };
  for (const message of headMessages) if (isSummaryMessage(message)) follow(message);

  // Every original message of every checkpoint must be in the head or covered, unaltered.
  const ever = new Map<string, string>();
  for (const stored of byId.values()) {
    for (const message of stored.messages) {
      if (
        !BaseMessage.isInstance(message) ||
        typeof message.id !== "string" ||
        getSummaryProvenance(message) ||
        editOf(message)
      )
        continue;
      if (!ever.has(message.id)) ever.set(message.id, fingerprint(message));
    }
  }
  // The transcript: read once, and only when a message is neither in the head nor covered, or a summary's checkpoint
  // was pruned. A message stored there is checked against the original.
  let transcript: Map<string, RecallEntry> | undefined;
  const readTranscript = async () =>
    (transcript ??= new Map(
      (await storeErrors(threadId, store.recall.entries(threadId))).map((entry) => [entry.messageId, entry]),
    ));
  const transcribed = async (id: string, print?: string): Promise<"yes" | "no" | "altered"> => {
    const entry = (await readTranscript()).get(id);
    if (!entry) return "no";
    if (print === undefined || !entry.message) return "yes";
    return fingerprint(await deserializeMessage(entry.message)) === print ? "yes" : "altered";
  };
  for (const { summary, provenance } of unsourced) {
    const missing: string[] = [];
    for (const id of provenance.coveredIds) if ((await transcribed(id)) === "no") missing.push(id);
    if (missing.length > 0 || !provenance.replacedCheckpointId) {
      problems.push({
        code: "PROVENANCE_CHECKPOINT_MISSING",
        id: provenance.replacedCheckpointId ?? String(summary.id),
        message: `summary ${summary.id} names checkpoint ${provenance.replacedCheckpointId}, which the store does not hold, and ${missing.length} message(s) it covers are not in the transcript`,
      });
    }
  }
  // Where a message left the head: the checkpoint right after the newest one holding it (checkpoints newest first).
  const leftIn = (id: string): StoredCheckpoint | undefined => {
    const newestHolder = checkpoints.findIndex((stored) =>
      stored.messages.some((message) => BaseMessage.isInstance(message) && message.id === id),
    );
    return newestHolder > 0 ? checkpoints[newestHolder - 1] : undefined;
  };
  let inHead = 0;
  let coveredCount = 0;
  let recordedCount = 0;
  let removedByApplication = 0;
  for (const [id, print] of ever) {
    const found = verbatim.get(id) ?? covered.get(id);
    if (found === undefined && edited.has(id)) {
      coveredCount++;
    } else if (found === undefined) {
      const state = await transcribed(id, print);
      if (state === "yes") recordedCount++;
      else if (state === "altered")
        problems.push({
          code: "ALTERED_MESSAGE",
          id,
          message: `message ${id} differs in the transcript from the stored original`,
        });
      // Removed by the application, not by a write of this library: the stored checkpoints still hold it.
      else if (!writtenByLibrary(leftIn(id)?.tuple.metadata as Record<string, unknown> | undefined))
        removedByApplication++;
      else
        problems.push({
          code: "LOST_MESSAGE",
          id,
          message: `message ${id} is neither in the head, nor covered by one of its summaries, nor in the transcript`,
        });
    } else if (found !== print) {
      problems.push({ code: "ALTERED_MESSAGE", id, message: `message ${id} differs from the stored original` });
    } else if (verbatim.has(id)) {
      inHead++;
    } else {
      coveredCount++;
    }
  }
  return {
    threadId,
    headCheckpointId: head.tuple.checkpoint.id,
    checkpoints: byId.size,
    messagesEver: ever.size,
    inHead,
    covered: coveredCount,
    recorded: recordedCount,
    removedByApplication,
    problems,
    headProblems,
  };
}
