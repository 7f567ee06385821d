/**
 * The compare-and-swap write of a replacement checkpoint: the contract (one writer per backend: swap-sqlite.ts,
 * swap-postgres.ts, swap-generic.ts; backends.ts picks the saver's).
 *
 * Contract: the new checkpoint lands only if, at the moment of the insert, the thread's head (root namespace) is
 * still `expectedCheckpointId` and has no pending writes; the check and the insert are one transaction. Otherwise
 * nothing is written and the outcome says why.
 *
 * - SQLite: `BEGIN IMMEDIATE` on the saver's own connection (takes the database's write lock, so no other writer,
 *   in this process or another, can commit between the check and the insert).
 * - Postgres: one transaction holding a per-thread advisory lock; the version of the `messages` blob is computed
 *   inside it, above every version stored for the channel (forked threads keep blobs of abandoned branches, and
 *   `ON CONFLICT DO NOTHING` would silently keep the old blob under a reused version).
 * - Any other saver (MemorySaver, custom): best effort — the check and `put` run back to back in this process,
 *   guarded by the per-thread lock of the HistoryManager.
 *
 * The recall index rows of the write (recall/) go in the same transaction: a message is searchable exactly when it
 * leaves the head, and a write that does not land indexes nothing.
 *
 * Verified against @langchain/langgraph-checkpoint-sqlite 1.0 and @langchain/langgraph-checkpoint-postgres 1.0:
 * the SQLite and Postgres paths write the very rows those savers write (same serializer, same columns).
 */

import type { ChannelVersions, Checkpoint, CheckpointMetadata } from "@langchain/langgraph-checkpoint";
import type { RecallChanges } from "./recall-index/types.js";

export type WriteOutcome =
  | { status: "written" }
  | { status: "conflict"; reason: string; headCheckpointId: string | null }
  | { status: "busy"; reason: string };

export interface ReplacementBuilder {
  /** Builds the checkpoint to insert, given the version the `messages` channel must get. */
  (messagesVersion: number | string): {
    checkpoint: Checkpoint;
    metadata: CheckpointMetadata;
    newVersions: ChannelVersions;
  };
}

export interface CompareAndSwapWriter {
  readonly backend: "sqlite" | "postgres" | "generic";
  /** Insert the checkpoint `build` returns if the head is still `expectedCheckpointId` with no pending writes. */
  write(request: WriteRequest): Promise<WriteOutcome>;
}

export interface WriteRequest {
  threadId: string;
  expectedCheckpointId: string;
  /** The `messages` version computed from the head's channel versions; a backend may raise it. */
  proposedVersion: number | string;
  build: ReplacementBuilder;
  /**
   * Replace the head even if it has pending writes. Only for recovering a turn that failed (its writes belong to
   * the failed attempt, which stays in the history): never for a running or interrupted thread.
   */
  ignorePendingWrites?: boolean;
  /** Recall index changes to write with the checkpoint, in its transaction. */
  recall?: RecallChanges;
}

/**
 * The compare-and-swap's verdict on the head found inside the write (`current`, with `pendingWrites` of its own):
 * undefined when the write may land, else why not. The one rule every writer applies.
 */
export function headVerdict(
  {
    expectedCheckpointId,
    ignorePendingWrites = false,
  }: Pick<WriteRequest, "expectedCheckpointId" | "ignorePendingWrites">,
  current: string | null,
  pendingWrites: number,
): Exclude<WriteOutcome, { status: "written" }> | undefined {
  if (current !== expectedCheckpointId)
    return {
      status: "conflict",
      reason: `the head moved from ${expectedCheckpointId} to ${current ?? "nothing"}`,
      headCheckpointId: current,
    };
  if (pendingWrites > 0 && !ignorePendingWrites)
    return {
      status: "busy",
      reason: `the head has ${pendingWrites} pending write(s): a run is in progress or interrupted`,
    };
  return undefined;
}

/** The greatest of `versions` (numbers compared as numbers, strings as strings), for `getNextVersion`. */
export function maxVersion(versions: ChannelVersions): number | string | undefined {
  let max: number | string | undefined;
  for (const version of Object.values(versions)) {
    if (max === undefined) max = version;
    else if (typeof version === "number" && typeof max === "number") max = Math.max(max, version);
    else if (String(version).localeCompare(String(max)) > 0) max = version;
  }
  return max;
}
