/**
 * The thread's head read for a compaction, with its count: the caller's count reused when the head holds the messages
 * it counted (a turn's), a grown head counted from its snapshot and what was appended since, else counted whole.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { CompactionError, threadNotFound } from "../errors.js";
import { turnOver } from "../slices.js";
import type { ThreadHead } from "../store/read-head.js";
import type { ManagerSettings, PrepareOptions } from "./manager-options.js";
import type { ProviderUsage } from "./calibration.js";
import type { CompactionReport } from "./report.js";
import type { CompactedMessages } from "./summarize-plan.js";

/** A summary computed from a snapshot of a thread's head, ready for `applyCompaction`. */
export interface PreparedCompaction {
  readonly status: "prepared";
  readonly threadId: string;
  /** The head the summary was computed from. */
  readonly snapshotCheckpointId: string;
  readonly snapshotLength: number;
  /** The snapshot's first `plan.prefixLength` messages: what the summary replaces. */
  readonly prefix: readonly BaseMessage[];
  readonly compacted: CompactedMessages;
  readonly messagesBefore: number;
  readonly tokensBefore: number;
  /** The provider's figures of the snapshot's latest call, when its reply carried them. */
  readonly providerUsage?: ProviderUsage;
}

export type ReportBase = Pick<
  CompactionReport,
  "threadId" | "previousCheckpointId" | "summarizer" | "attempts" | "providerUsage"
> & { messagesBefore: number; tokensBefore: number };

/** Whether `a` and `b` hold the same messages, by id, in order (every message with an id). */
export function sameMessages(a: readonly BaseMessage[], b: readonly BaseMessage[]): boolean {
  return a.length === b.length && a.every((message, index) => message.id !== undefined && message.id === b[index]!.id);
}

/** The thread's head, and the report fields every outcome on it starts from. */
export async function readHead(
  settings: ManagerSettings,
  threadId: string,
  summarizer: string,
  attempts: number,
  at?: string,
  counted?: PrepareOptions["counted"] | { grownFrom: PreparedCompaction },
): Promise<{ head: ThreadHead; headId: string; base: ReportBase; ratio?: number; each?: readonly number[] }> {
  // Reading (deserializing) a long thread, and counting it, are phases of their own (slices.ts).
  await turnOver();
  const head = await settings.store.readHead(threadId, at);
  if (!head && at !== undefined) {
    throw new CompactionError({
      code: "CHECKPOINT_NOT_FOUND",
      value: at,
      message: `thread ${threadId} has no checkpoint ${at}`,
    });
  }
  if (!head) throw threadNotFound(threadId);
  const headId = head.tuple.checkpoint.id;
  await turnOver();
  if (counted && "grownFrom" in counted && head.messages.length >= counted.grownFrom.snapshotLength) {
    const { grownFrom } = counted;
    const appended = settings.counter.countEach(head.messages.slice(grownFrom.snapshotLength));
    const base = {
      threadId,
      previousCheckpointId: headId,
      messagesBefore: head.messages.length,
      tokensBefore: grownFrom.tokensBefore + appended.reduce((total, tokens) => total + tokens, 0),
      summarizer,
      attempts,
    };
    return { head, headId, base };
  }
  // A head that holds the messages the caller counted, maybe with more after them (turns that ran since): their count
  // and the new messages' (no second pass over the head).
  const known =
    counted && "messages" in counted && head.messages.length >= counted.messages.length ? counted : undefined;
  const measured =
    known && sameMessages(known.messages, head.messages.slice(0, known.messages.length))
      ? await settings.calibration.count(head.messages, 0, [
          ...known.measured.each,
          ...settings.counter.countEach(head.messages.slice(known.messages.length)),
        ])
      : await settings.calibration.count(head.messages);
  const base = {
    threadId,
    previousCheckpointId: headId,
    messagesBefore: head.messages.length,
    tokensBefore: measured.tokens,
    summarizer,
    attempts,
    ...(measured.usage ? { providerUsage: measured.usage } : {}),
  };
  return { head, headId, base, ratio: measured.ratio, each: measured.each };
}
