/**
 * The compare-and-swap write of a replacement checkpoint, per backend.
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

import { quoteIdentifier } from "./sql.js";
import { memoryRecallFor } from "./recall-index/memory-index.js";
import { applyPostgresRecall, DEFAULT_POSTGRES_LANGUAGE } from "./recall-index/postgres-index.js";
import { applySqliteRecall } from "./recall-index/sqlite-index.js";
import type { RecallChanges } from "./recall-index/types.js";
import type {
  BaseCheckpointSaver,
  ChannelVersions,
  Checkpoint,
  CheckpointMetadata,
} from "@langchain/langgraph-checkpoint";
import type { SqliteDatabase as Database } from "./sqlite-database.js";

export type WriteOutcome =
  | { status: "written" }
  | { status: "conflict"; reason: string; headCheckpointId: string | null }
  | { status: "busy"; reason: string };

export interface ReplacementBuilder {
  /** Builds the checkpoint to insert, given the version the `messages` channel must get. */
  (messagesVersion: number | string): { checkpoint: Checkpoint; metadata: CheckpointMetadata; newVersions: ChannelVersions };
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

export interface WriterOptions {
  /** Postgres text search configuration of the recall index. @default "simple" */
  recallLanguage?: string;
}

type Serde = { dumpsTyped(value: unknown): Promise<[string, Uint8Array]> | [string, Uint8Array] };

/** The greatest `messages` version among the channel versions of `checkpoint`, for `getNextVersion`. */
export function maxVersion(versions: ChannelVersions): number | string | undefined {
  let max: number | string | undefined;
  for (const version of Object.values(versions)) {
    if (max === undefined) max = version;
    else if (typeof version === "number" && typeof max === "number") max = Math.max(max, version);
    else if (String(version).localeCompare(String(max)) > 0) max = version;
  }
  return max;
}

// ---------------------------------------------------------------------------------------------- SQLite

interface SqliteSaverLike extends BaseCheckpointSaver {
  db: Database;
}

export function isSqliteSaver(saver: BaseCheckpointSaver): saver is SqliteSaverLike {
  const db = (saver as { db?: unknown }).db;
  return typeof db === "object" && db !== null && typeof (db as Database).transaction === "function" && typeof (db as Database).prepare === "function";
}

class SqliteWriter implements CompareAndSwapWriter {
  readonly backend = "sqlite" as const;
  constructor(private readonly saver: SqliteSaverLike) {}

  async write({ threadId, expectedCheckpointId, proposedVersion, build, ignorePendingWrites = false, recall }: WriteRequest): Promise<WriteOutcome> {
    // setup() is idempotent and creates the tables a fresh file lacks.
    (this.saver as unknown as { setup(): void }).setup();
    const db = this.saver.db;
    const { checkpoint, metadata } = build(proposedVersion);
    const serde = (this.saver as unknown as { serde: Serde }).serde;
    const [[type, serializedCheckpoint], [metadataType, serializedMetadata]] = await Promise.all([
      serde.dumpsTyped(checkpoint),
      serde.dumpsTyped(metadata),
    ]);
    if (type !== metadataType) throw new Error("checkpoint and metadata serialized to different types");
    const run = db.transaction((): WriteOutcome => {
      const current = db
        .prepare(`SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1`)
        .get(threadId) as { checkpoint_id: string } | undefined;
      if (current?.checkpoint_id !== expectedCheckpointId) {
        return {
          status: "conflict",
          reason: `the head moved from ${expectedCheckpointId} to ${current?.checkpoint_id ?? "nothing"}`,
          headCheckpointId: current?.checkpoint_id ?? null,
        };
      }
      const pending = db
        .prepare(`SELECT COUNT(*) AS n FROM writes WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?`)
        .get(threadId, expectedCheckpointId) as { n: number };
      if (pending.n > 0 && !ignorePendingWrites) return { status: "busy", reason: `the head has ${pending.n} pending write(s): a run is in progress or interrupted` };
      db.prepare(
        `INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata) VALUES (?, '', ?, ?, ?, ?, ?)`,
      ).run(threadId, checkpoint.id, expectedCheckpointId, type, serializedCheckpoint, serializedMetadata);
      if (recall) applySqliteRecall(db, recall);
      return { status: "written" };
    });
    return run.immediate();
  }
}

// -------------------------------------------------------------------------------------------- Postgres

interface PostgresClient {
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
  release(): void;
}

interface PostgresSaverInternals extends BaseCheckpointSaver {
  pool: { connect(): Promise<PostgresClient> };
  options: { schema: string };
  _dumpCheckpoint(checkpoint: Checkpoint): Record<string, unknown>;
  _dumpBlobs(threadId: string, ns: string, values: Record<string, unknown>, versions: ChannelVersions): Promise<unknown[][]>;
  _dumpMetadata(metadata: CheckpointMetadata): Promise<unknown>;
  SQL_STATEMENTS: { UPSERT_CHECKPOINT_BLOBS_SQL: string };
}

export function isPostgresSaver(saver: BaseCheckpointSaver): saver is PostgresSaverInternals {
  const candidate = saver as Partial<PostgresSaverInternals>;
  return (
    typeof candidate.pool?.connect === "function" &&
    typeof candidate._dumpBlobs === "function" &&
    typeof candidate._dumpCheckpoint === "function" &&
    typeof candidate.SQL_STATEMENTS?.UPSERT_CHECKPOINT_BLOBS_SQL === "string"
  );
}

class PostgresWriter implements CompareAndSwapWriter {
  readonly backend = "postgres" as const;
  constructor(
    private readonly saver: PostgresSaverInternals,
    private readonly recallLanguage: string,
  ) {}

  async write({ threadId, expectedCheckpointId, proposedVersion, build, ignorePendingWrites = false, recall }: WriteRequest): Promise<WriteOutcome> {
    const schema = quoteIdentifier(this.saver.options.schema);
    const client = await this.saver.pool.connect();
    try {
      await client.query("BEGIN");
      try {
        await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 7243))", [`langgraph-compaction:${threadId}`]);
        const head = await client.query(
          `SELECT checkpoint_id FROM ${schema}.checkpoints WHERE thread_id = $1 AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1`,
          [threadId],
        );
        const current = (head.rows[0]?.checkpoint_id as string | undefined) ?? null;
        if (current !== expectedCheckpointId) {
          await client.query("ROLLBACK");
          return { status: "conflict", reason: `the head moved from ${expectedCheckpointId} to ${current ?? "nothing"}`, headCheckpointId: current };
        }
        const pending = await client.query(
          `SELECT 1 FROM ${schema}.checkpoint_writes WHERE thread_id = $1 AND checkpoint_ns = '' AND checkpoint_id = $2 LIMIT 1`,
          [threadId, expectedCheckpointId],
        );
        if (pending.rows.length > 0 && !ignorePendingWrites) {
          await client.query("ROLLBACK");
          return { status: "busy", reason: "the head has pending writes: a run is in progress or interrupted" };
        }
        const stored = await client.query(
          `SELECT version FROM ${schema}.checkpoint_blobs WHERE thread_id = $1 AND checkpoint_ns = '' AND channel = 'messages'`,
          [threadId],
        );
        let highest = 0;
        for (const row of stored.rows) highest = Math.max(highest, Number.parseInt(String(row.version), 10) || 0);
        const { checkpoint, metadata, newVersions } = build(
          typeof proposedVersion === "number" ? Math.max(highest + 1, proposedVersion) : proposedVersion,
        );
        const candidate = newVersions.messages;
        if (typeof candidate === "number" && candidate <= highest) {
          throw new Error(`messages version ${candidate} is not above the stored ${highest}`);
        }
        const blobs = await this.saver._dumpBlobs(threadId, "", checkpoint.channel_values, newVersions);
        for (const blob of blobs) await client.query(this.saver.SQL_STATEMENTS.UPSERT_CHECKPOINT_BLOBS_SQL, blob);
        await client.query(
          `INSERT INTO ${schema}.checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata) VALUES ($1, '', $2, $3, $4, $5)`,
          [threadId, checkpoint.id, expectedCheckpointId, this.saver._dumpCheckpoint(checkpoint), await this.saver._dumpMetadata(metadata)],
        );
        if (recall) await applyPostgresRecall(client, this.saver.options.schema, this.recallLanguage, recall);
        await client.query("COMMIT");
        return { status: "written" };
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      }
    } finally {
      client.release();
    }
  }
}

// --------------------------------------------------------------------------------------------- Generic

class GenericWriter implements CompareAndSwapWriter {
  readonly backend = "generic" as const;
  constructor(private readonly saver: BaseCheckpointSaver) {}

  async write({ threadId, expectedCheckpointId, proposedVersion, build, ignorePendingWrites = false, recall }: WriteRequest): Promise<WriteOutcome> {
    const head = await this.saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } });
    const current = head?.checkpoint.id ?? null;
    if (current !== expectedCheckpointId) {
      return { status: "conflict", reason: `the head moved from ${expectedCheckpointId} to ${current ?? "nothing"}`, headCheckpointId: current };
    }
    if ((head?.pendingWrites?.length ?? 0) > 0 && !ignorePendingWrites) {
      return { status: "busy", reason: "the head has pending writes: a run is in progress or interrupted" };
    }
    const { checkpoint, metadata, newVersions } = build(proposedVersion);
    await this.saver.put(
      { configurable: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: expectedCheckpointId } },
      checkpoint,
      metadata,
      newVersions,
    );
    // In this process, right after the put, under the HistoryManager's per-thread lock (best effort, as the write).
    if (recall) memoryRecallFor(this.saver).apply(recall);
    return { status: "written" };
  }
}

/** The strongest compare-and-swap available for `saver`. */
export function createWriter(saver: BaseCheckpointSaver, { recallLanguage = DEFAULT_POSTGRES_LANGUAGE }: WriterOptions = {}): CompareAndSwapWriter {
  if (isPostgresSaver(saver)) return new PostgresWriter(saver, recallLanguage);
  if (isSqliteSaver(saver)) return new SqliteWriter(saver);
  return new GenericWriter(saver);
}
