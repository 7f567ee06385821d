/**
 * What a prune deletes and what the transcript must hold first (the plan), and what a backend's tables tell the
 * planner without a checkpoint being read (engine/prune-plan.ts makes every plan).
 */
import type { RecallEntry } from "./recall-index/types.js";

export interface PrunePlan {
  headCheckpointId: string;
  /** Root-namespace checkpoints kept, oldest first. */
  kept: string[];
  /** Root-namespace checkpoints deleted (with their writes). */
  remove: string[];
  /** Subgraph checkpoints older than this id (whole namespaces) go with them; undefined when none is removed. */
  namespacesBefore?: string;
  /**
   * Of those namespaces, the ones kept whole: they hold a message neither a kept checkpoint nor the transcript holds
   * (a sub-agent's tool calls, which never reach the root conversation).
   */
  keepNamespaces?: string[];
  /** Transcript entries written before anything is deleted. */
  backfill: RecallEntry[];
  /** Delete only checkpoints that no checkpoint names as its parent; a plan that would delete a parent conflicts. */
  leavesOnly?: boolean;
}

/** What a backend reads of its tables for a plan made without reading a checkpoint (prune-tables.ts). */
export interface PruneTables {
  /** The ids of the thread's root checkpoints, oldest first; undefined when the tables do not exist yet. */
  rootCheckpoints(threadId: string): Promise<string[] | undefined>;
  /** Whether any of `ids` has an interrupt waiting (its checkpoint must stay). */
  interruptWaiting(threadId: string, ids: readonly string[]): Promise<boolean>;
  /** The thread's subgraph namespaces whose newest checkpoint is older than `before` (a prune deletes them whole). */
  namespacesBefore(threadId: string, before: string): Promise<string[]>;
  /**
   * Whether the messages `checkpointId` holds are the start of those `keptId` holds, as stored (the same bytes):
   * true, false, or undefined where the store cannot tell (not a JSON list: another serializer, a delta channel).
   */
  isPrefixOf(threadId: string, checkpointId: string, keptId: string): Promise<boolean | undefined>;
}
