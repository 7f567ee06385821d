/**
 * A thread's timeline: its root-namespace checkpoints oldest first, each with its messages counted, the writes of
 * this library (compactions, restores) and superseded writes marked, and the checkpoints turns ended on. `history`
 * prints it; `report` draws it.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { supersededWrites } from "../store/lineage.js";
import type { ThreadStore } from "../store/thread-store.js";
import type { TokenCounter } from "../tokens/token-counter.js";

export interface TimelineRow {
  checkpointId: string;
  parentId: string | null;
  step: number;
  source: string;
  messages: number;
  tokens: number;
  compaction: Record<string, unknown> | null;
  restore: Record<string, unknown> | null;
  /** A write of this library that a turn which had read the thread before it superseded (nothing lost). */
  superseded: boolean;
  ts: string;
  /** The checkpoint a turn ended on: the one before the next turn's input or a write of this library, or the head. */
  turnEnd: boolean;
}

/** What follows the checkpoint a turn ended on: the next turn's input, or a write of this library between turns. */
function endsTurn(next: Record<string, unknown> | undefined): boolean {
  return next?.source === "input" || next?.compaction !== undefined || next?.restore !== undefined;
}

export async function timelineOf(
  store: ThreadStore,
  threadId: string,
  counter: TokenCounter,
): Promise<{ rows: TimelineRow[]; messages: BaseMessage[][] }> {
  const stored = (await store.listCheckpoints(threadId)).reverse();
  const superseded = supersededWrites(stored.map(({ tuple }) => tuple));
  const rows = stored.map(({ tuple, messages }, index): TimelineRow => {
    const metadata = (tuple.metadata ?? {}) as Record<string, unknown>;
    const next = stored[index + 1];
    return {
      checkpointId: tuple.checkpoint.id,
      parentId: (tuple.parentConfig?.configurable?.checkpoint_id as string | undefined) ?? null,
      step: metadata.step as number,
      source: metadata.source as string,
      messages: messages.length,
      tokens: counter.countMessages(messages),
      compaction: (metadata.compaction as Record<string, unknown> | undefined) ?? null,
      restore: (metadata.restore as Record<string, unknown> | undefined) ?? null,
      superseded: superseded.has(tuple.checkpoint.id),
      ts: tuple.checkpoint.ts,
      turnEnd: !next || endsTurn(next.tuple.metadata as Record<string, unknown> | undefined),
    };
  });
  return { rows, messages: stored.map(({ messages }) => messages) };
}
