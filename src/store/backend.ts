/**
 * What a ThreadStore needs of its backend (backends.ts picks one by what the saver is): the compare-and-swap writer,
 * the recall index, the prune and the listings.
 */
import type { CheckpointTuple } from "@langchain/langgraph-checkpoint";
import type { CompareAndSwapWriter } from "./compare-and-swap.js";
import type { RecallChanges, RecallEntry } from "./recall-index/types.js";
import type { PrunePlan } from "./prune-plan.js";
import type { PruneTables } from "./prune-plan.js";
import type { PruneOutcome } from "./prune-writers.js";

export interface Backend {
  name: "sqlite" | "postgres" | "generic";
  writer: CompareAndSwapWriter;
  recall: RecallBackend;
  listThreads(): Promise<ThreadRow[]>;
  /**
   * The thread's root-namespace head (or its checkpoint `checkpointId`) as the saver's `getTuple` returns it, read
   * faster than the saver reads it; absent where the saver's own read is the one to use.
   */
  readTuple?: (threadId: string, checkpointId?: string) => Promise<CheckpointTuple | undefined>;
  /** The id of the thread's root-namespace head, without reading the checkpoint itself. */
  headId(threadId: string): Promise<string | undefined>;
  /** Bytes of the head's JSON where it holds its messages as a list (a bound on their tokens); else undefined. */
  headBytes?(threadId: string): Promise<number | undefined>;
  /** Deletes what `plan` removes (prune-writers.ts); UNSUPPORTED for a saver this library cannot delete from. */
  prune(threadId: string, plan: PrunePlan): Promise<PruneOutcome>;
  /** Whether `prune` can delete from this saver. */
  prunable: boolean;
  /**
   * What a prune's plan reads of the store's tables (engine/prune-plan.ts), loaded at the first prune; absent where
   * the saver has none.
   */
  pruneTables?: () => Promise<Omit<PruneTables, "namespacesBefore">>;
  /** The thread's subgraph namespaces whose newest checkpoint is older than `before` (those a prune deletes whole). */
  namespacesBefore: (threadId: string, before: string) => Promise<string[]>;
  /** What the thread takes in the store (every namespace), or undefined where the saver does not say. */
  storage(threadId: string): Promise<ThreadStorage | undefined>;
  /**
   * The store's file: its bytes and the bytes of its free pages (what deletions freed, reused by later writes);
   * with `vacuum`, rewritten without them first (SQLite's VACUUM). Undefined where the store is no file.
   */
  file?(vacuum: boolean): Promise<StoreFile>;
  /** Threads whose root-namespace head id is above `cursor` (ids sort by time), with that head: an indexed query. */
  changedSince(cursor: string): Promise<HeadRow[]>;
  /**
   * Checkpoints this library wrote with an id above `cursor` that are not their thread's head and that no checkpoint
   * descends from: writes a run superseded (store/lineage.ts), found from the store whoever wrote them.
   */
  strandedWrites(cursor: string): Promise<HeadRow[]>;
  /** The store's own database, for a job queue that keeps its tables beside the checkpoints (Postgres). */
  queueDatabase?: QueueDatabase;
}

/** A database as pg-boss takes one (a statement and its values in, the rows out), and the store's place in it. */
export interface QueueDatabase {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  /** The store's schema: stores side by side in one database keep their jobs apart by it. */
  scope: string;
}

/**
 * What every home of the transcript answers: its entries, what it holds of some messages, and its writes. Searching
 * it is recall's (recall-index/search-types.ts), found from it by the search (recall-index/search-of.ts).
 */
export interface RecallBackend {
  entries(threadId: string): Promise<RecallEntry[]>;
  /**
   * Which of `messageIds` the transcript holds with their stored message, each with the texts of the versions it holds
   * (recall-index/versions.ts): an indexed lookup, not a read of every entry.
   */
  recorded(threadId: string, messageIds: readonly string[]): Promise<Map<string, Set<string>>>;
  replaceThread(threadId: string, entries: readonly RecallEntry[]): Promise<void>;
  /** Writes `changes` on their own (not with a head write), idempotently by message id. */
  record(changes: RecallChanges): Promise<void>;
}

/** A store's file: its size, and of that, pages deletions freed (SQLite keeps them for its later writes). */
export interface StoreFile {
  bytes: number;
  freeBytes: number;
}

/** A thread as the store lists it, without reading its messages. */
export interface ThreadRow {
  threadId: string;
  /** Checkpoints in its root namespace. */
  checkpoints: number;
  headCheckpointId: string;
  /** Bytes its head checkpoint takes in the store (with its channel blobs on Postgres); undefined on the generic path. */
  headBytes?: number;
}

/** What a thread takes in its store: its checkpoints (every namespace) and their bytes, pending writes' bytes. */
export interface ThreadStorage {
  /** Every checkpoint of the thread, its sub-agents' (subgraph namespaces) among them. */
  checkpoints: number;
  /** Of those, the checkpoints of subgraph namespaces (a supervisor's sub-agents); the rest are the conversation's own. */
  subgraphCheckpoints: number;
  /** Serialized checkpoints and their metadata (with the channel blobs on Postgres). */
  checkpointBytes: number;
  writeBytes: number;
}

export interface HeadRow {
  threadId: string;
  headCheckpointId: string;
}
