/**
 * The store seam: everything the engine, the runtimes, the recall features and the script ask of a checkpoint
 * saver, one implementation per backend (SQLite, Postgres, and the generic path for any other saver), created by one
 * function from a checkpointer. Saver internals (`db`, `pool`, private serializers and statements, the shape of
 * `channel_values`) are read in this folder and nowhere else (`npm run check:internals`).
 */
import { BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver, CheckpointTuple } from "@langchain/langgraph-checkpoint";
import { asStoreError, asStoreReadError, CompactionError } from "../errors.js";
import { messagesOfCheckpoints, type StoredCheckpoint } from "./checkpoint-messages.js";
import { backendFor } from "./backends.js";
import type { Backend, HeadRow, QueueDatabase, RecallBackend, StoreFile, ThreadRow, ThreadStorage } from "./backend.js";
import type { WriteOutcome } from "./compare-and-swap.js";
import { readThreadHead, requireMessages, type ThreadHead } from "./read-head.js";
import { DEFAULT_RECALL_LANGUAGE } from "./recall-index/types.js";
import type { RecallChanges } from "./recall-index/types.js";
import { buildReplacement } from "./replacement-checkpoint.js";
import type { PrunePlan, PruneTables } from "./prune-plan.js";
import type { PruneOutcome } from "./prune-writers.js";

export type { RecallBackend, StoredCheckpoint, StoreFile, ThreadRow, ThreadStorage };

export interface ReplaceHeadRequest {
  threadId: string;
  /** The head the new history replaces: the write lands only while it is still the head (compare-and-swap). */
  head: CheckpointTuple;
  /** The checkpoint the replacement copies its other channels from. @default head */
  base?: CheckpointTuple;
  messages: readonly BaseMessage[];
  metadata?: Record<string, unknown>;
  /** Replace the head even with pending writes: only to recover a turn that failed, never a running thread. */
  ignorePendingWrites?: boolean;
  /** Recall index changes, written in the same transaction. */
  recall?: RecallChanges;
}

export type ReplaceOutcome = { status: "written"; checkpointId: string } | Exclude<WriteOutcome, { status: "written" }>;

export interface ThreadStore {
  readonly backend: "sqlite" | "postgres" | "generic";
  readonly saver: BaseCheckpointSaver;
  /** The recall index of the store: FTS5 in a SQLite file, tsvector in Postgres, in-process for other savers. */
  readonly recall: RecallBackend;
  /**
   * The head of the thread's root namespace with its messages; undefined for a thread with no checkpoint. `at`: the
   * checkpoint with that id instead, read the same way (a snapshot the head may have moved on from).
   */
  readHead(threadId: string, at?: string): Promise<ThreadHead | undefined>;
  /** The id of that head, read without deserializing it (SQLite and Postgres); undefined for a thread with none. */
  readHeadId(threadId: string): Promise<string | undefined>;
  /**
   * Bytes the head's messages take stored as JSON — at least their tokens in any tokenizer (a token is a byte or
   * more of text, and the JSON adds to it) — read without reviving them; undefined where the store cannot say (a
   * delta channel, another serializer, a saver other than SQLite).
   */
  readHeadBytes(threadId: string): Promise<number | undefined>;
  /** One checkpoint of the thread's root namespace, or undefined when the thread has no such checkpoint. */
  readCheckpoint(threadId: string, checkpointId: string): Promise<StoredCheckpoint | undefined>;
  /** Every checkpoint of the thread's root namespace, newest first, with their messages. */
  listCheckpoints(threadId: string): Promise<StoredCheckpoint[]>;
  /** The compare-and-swap force-write of a new history (only `messages` changes, its version bumped). */
  replaceHead(request: ReplaceHeadRequest): Promise<ReplaceOutcome>;
  /** Threads with a root-namespace checkpoint, ordered by id. */
  listThreads(): Promise<ThreadRow[]>;
  /**
   * Threads whose head id is above `cursor` (checkpoint ids sort by time), with that head, read without any
   * checkpoint: an indexed query on SQLite and Postgres. `""` lists every thread.
   */
  changedSince(cursor: string): Promise<HeadRow[]>;
  /**
   * This library's writes with an id above `cursor` that are not their thread's head and that nothing descends from
   * (a run superseded them: store/lineage.ts), each with its thread: found from the store, whoever wrote them.
   */
  strandedWrites(cursor: string): Promise<HeadRow[]>;
  /** The store's own database, for a job queue that keeps its tables beside the checkpoints: Postgres only. */
  readonly queueDatabase?: QueueDatabase;
  /**
   * Deletes what `plan` removes, with the transcript entries it writes first, while the head is still the plan's.
   * @throws CompactionError UNSUPPORTED for a saver other than SQLite, Postgres or MemorySaver.
   */
  prune(threadId: string, plan: PrunePlan): Promise<PruneOutcome>;
  /** Whether `prune` can delete from this saver (SQLite, Postgres, MemorySaver). */
  readonly prunable: boolean;
  /**
   * What the store's tables tell a prune's planner without a checkpoint being read, where the backend reads them
   * (loaded at the first prune); undefined elsewhere.
   */
  pruneTables(): Promise<PruneTables | undefined>;
  /**
   * The thread's subgraph namespaces a prune whose root deletions end at `before` would delete whole, each with the
   * ids of the messages its checkpoints hold — undefined where that cannot be told (a value that is not a list of
   * messages, a message without an id): such a namespace must be kept.
   */
  subgraphMessageIds(threadId: string, before: string): Promise<Map<string, string[] | undefined>>;
  /** What the thread takes in the store; undefined where the saver does not say (the generic path). */
  storageOf(threadId: string): Promise<ThreadStorage | undefined>;
  /**
   * The store's file, its size and its free pages; with `vacuum`, rewritten without the free pages first (SQLite's
   * VACUUM: the file shrinks; it needs its own size again in free disk, and holds the write lock while it runs).
   * Undefined for a store that is no file (Postgres reuses freed space itself; MemorySaver).
   */
  storeFile(vacuum?: boolean): Promise<StoreFile | undefined>;
}

export interface ThreadStoreOptions {
  /** Postgres text search configuration of the recall index. @default "simple" */
  recallLanguage?: string;
}

class BackendThreadStore implements ThreadStore {
  readonly backend: ThreadStore["backend"];
  readonly recall: RecallBackend;

  constructor(
    readonly saver: BaseCheckpointSaver,
    private readonly parts: Backend,
  ) {
    this.backend = parts.name;
    this.recall = parts.recall;
  }

  get queueDatabase(): QueueDatabase | undefined {
    return this.parts.queueDatabase;
  }

  readHead(threadId: string, at?: string): Promise<ThreadHead | undefined> {
    return readThreadHead(this.saver, threadId, at, this.parts.readTuple);
  }

  async readHeadId(threadId: string): Promise<string | undefined> {
    try {
      return await this.parts.headId(threadId);
    } catch (error) {
      throw asStoreReadError(error, threadId);
    }
  }

  async readHeadBytes(threadId: string): Promise<number | undefined> {
    try {
      return await this.parts.headBytes?.(threadId);
    } catch (error) {
      throw asStoreReadError(error, threadId);
    }
  }

  async readCheckpoint(threadId: string, checkpointId: string): Promise<StoredCheckpoint | undefined> {
    const stored = await this.readHead(threadId, checkpointId);
    return stored?.tuple.checkpoint.id === checkpointId
      ? { tuple: stored.tuple, messages: stored.messages }
      : undefined;
  }

  async listCheckpoints(threadId: string): Promise<StoredCheckpoint[]> {
    const tuples: CheckpointTuple[] = [];
    try {
      for await (const tuple of this.saver.list({ configurable: { thread_id: threadId, checkpoint_ns: "" } }))
        tuples.push(tuple);
      return await this.withMessages(threadId, tuples);
    } catch (error) {
      throw asStoreReadError(error, threadId);
    }
  }

  private async withMessages(threadId: string, tuples: CheckpointTuple[]): Promise<StoredCheckpoint[]> {
    const values = await messagesOfCheckpoints(this.saver, tuples);
    return tuples.map((tuple) => ({ tuple, messages: requireMessages(values.get(tuple.checkpoint.id), threadId) }));
  }

  async replaceHead({
    threadId,
    head,
    base = head,
    messages,
    metadata,
    ignorePendingWrites,
    recall,
  }: ReplaceHeadRequest): Promise<ReplaceOutcome> {
    const replacement = buildReplacement(head, base, messages, metadata);
    const outcome = await this.parts.writer.write({
      threadId,
      expectedCheckpointId: head.checkpoint.id,
      proposedVersion: this.saver.getNextVersion(replacement.baseVersion as number | undefined),
      build: replacement.build,
      ...(ignorePendingWrites ? { ignorePendingWrites } : {}),
      ...(recall ? { recall } : {}),
    });
    return outcome.status === "written" ? { status: "written", checkpointId: replacement.id } : outcome;
  }

  get prunable(): boolean {
    return this.parts.prunable;
  }

  async subgraphMessageIds(threadId: string, before: string): Promise<Map<string, string[] | undefined>> {
    const held = new Map<string, string[] | undefined>();
    try {
      for (const namespace of await this.parts.namespacesBefore(threadId, before)) {
        let ids: string[] | undefined = [];
        for await (const tuple of this.saver.list({
          configurable: { thread_id: threadId, checkpoint_ns: namespace },
        })) {
          const messages = tuple.checkpoint.channel_values?.messages;
          if (messages === undefined) continue;
          if (
            !Array.isArray(messages) ||
            messages.some((message) => !BaseMessage.isInstance(message) || typeof message.id !== "string")
          ) {
            ids = undefined;
            break;
          }
          ids.push(...messages.map((message: BaseMessage) => message.id!));
        }
        held.set(namespace, ids);
      }
    } catch (error) {
      if (CompactionError.isInstance(error)) throw error;
      throw asStoreError(error, threadId);
    }
    return held;
  }

  async pruneTables(): Promise<PruneTables | undefined> {
    const tables = await this.parts.pruneTables?.();
    return tables && { ...tables, namespacesBefore: this.parts.namespacesBefore };
  }

  async prune(threadId: string, plan: PrunePlan): Promise<PruneOutcome> {
    try {
      return await this.parts.prune(threadId, plan);
    } catch (error) {
      if (CompactionError.isInstance(error)) throw error;
      throw asStoreError(error, threadId);
    }
  }

  async storeFile(vacuum = false): Promise<StoreFile | undefined> {
    try {
      return await this.parts.file?.(vacuum);
    } catch (error) {
      throw asStoreError(error, "(the store)");
    }
  }

  async storageOf(threadId: string): Promise<ThreadStorage | undefined> {
    try {
      return await this.parts.storage(threadId);
    } catch (error) {
      throw asStoreReadError(error, threadId);
    }
  }

  listThreads(): Promise<ThreadRow[]> {
    return this.parts.listThreads();
  }

  async changedSince(cursor: string): Promise<HeadRow[]> {
    try {
      return await this.parts.changedSince(cursor);
    } catch (error) {
      throw asStoreReadError(error, "(every thread)");
    }
  }

  async strandedWrites(cursor: string): Promise<HeadRow[]> {
    try {
      return await this.parts.strandedWrites(cursor);
    } catch (error) {
      throw asStoreReadError(error, "(every thread)");
    }
  }
}

const stores = new WeakMap<BaseCheckpointSaver, Map<string, ThreadStore>>();

/**
 * The store of `saver`: the strongest backend it supports (SQLite, Postgres, else generic), one per saver and recall
 * language, created on first use.
 */
export function threadStoreFor(
  saver: BaseCheckpointSaver,
  { recallLanguage = DEFAULT_RECALL_LANGUAGE }: ThreadStoreOptions = {},
): ThreadStore {
  let byLanguage = stores.get(saver);
  if (!byLanguage) stores.set(saver, (byLanguage = new Map()));
  let store = byLanguage.get(recallLanguage);
  if (!store)
    byLanguage.set(recallLanguage, (store = new BackendThreadStore(saver, backendFor(saver, recallLanguage))));
  return store;
}
