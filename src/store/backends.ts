/**
 * The parts of a ThreadStore that differ per backend: the compare-and-swap writer, the recall index and the thread
 * listing, chosen by what the saver is (the only place a saver's kind is sniffed).
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { resolve } from "node:path";
import type { CompareAndSwapWriter } from "./compare-and-swap.js";
import { memoryRecallFor } from "./recall-index/memory-index.js";
import { PostgresRecall, validateLanguage, type PostgresPool } from "./recall-index/postgres-index.js";
import { SqliteRecall } from "./recall-index/sqlite-index.js";
import { quoteIdentifier } from "./sql.js";
import { GenericWriter } from "./swap-generic.js";
import { isPostgresSaver, PostgresWriter } from "./swap-postgres.js";
import { isSqliteSaver, SqliteWriter } from "./swap-sqlite.js";
import type { RecallChanges, RecallEntry, RecallMessage } from "./recall-index/types.js";
import type { RecallVectors } from "./recall-index/vectors.js";
import type { RecallFilter } from "./recall-index/filter.js";
import type { PrunePlan } from "./prune-plan.js";
import { PostgresLeases, SqliteLeases, type LeaseBackend } from "./leases.js";
import type { PruneTables } from "./prune-by-ids.js";
import { postgresPruneTables, sqlitePruneTables } from "./prune-tables.js";
import { genericIdentity, genericLeases } from "./generic-parts.js";
import { createRootIdIndex } from "./root-id-index.js";
import {
  isMemorySaver,
  pruneMemory,
  prunePostgres,
  pruneSqlite,
  unsupportedPrune,
  type PruneOutcome,
} from "./prune-writers.js";

export interface Backend {
  name: "sqlite" | "postgres" | "generic";
  /**
   * What names this store on its machine, the same in every process that opens it: a SQLite file's path, a Postgres
   * server, database and schema; for another saver, this saver object alone.
   */
  identity: string;
  writer: CompareAndSwapWriter;
  recall: RecallBackend;
  listThreads(): Promise<ThreadRow[]>;
  /** The id of the thread's root-namespace head, without reading the checkpoint itself. */
  headId(threadId: string): Promise<string | undefined>;
  /** Bytes of the head's JSON where it holds its messages as a list (a bound on their tokens); else undefined. */
  headBytes?(threadId: string): Promise<number | undefined>;
  /** Deletes what `plan` removes (prune-writers.ts); UNSUPPORTED for a saver this library cannot delete from. */
  prune(threadId: string, plan: PrunePlan): Promise<PruneOutcome>;
  /** Whether `prune` can delete from this saver. */
  prunable: boolean;
  /** What a prune's plan reads of the store's tables (prune-by-ids.ts); absent where the saver has none. */
  pruneTables?: Omit<PruneTables, "namespacesBefore">;
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
  leases: LeaseBackend;
}

/** What every backend of the recall index answers. */
export interface RecallBackend {
  /** The best `limit` messages holding any of `terms`; with `filter`, of those it passes (recall-index/filter.ts). */
  search(
    threadId: string,
    terms: readonly string[],
    limit: number,
    filter?: RecallFilter,
  ): Promise<Array<RecallMessage & { ordinal: number; score: number }>>;
  neighbours(
    threadId: string,
    at: { checkpointId: string; ordinal: number },
    count: number,
  ): Promise<{ before: RecallMessage[]; after: RecallMessage[] }>;
  entries(threadId: string): Promise<RecallEntry[]>;
  /**
   * Which of `messageIds` the transcript holds with their stored message, each with the texts of the versions it holds
   * (recall-index/versions.ts): an indexed lookup, not a read of every entry.
   */
  recorded(threadId: string, messageIds: readonly string[]): Promise<Map<string, Set<string>>>;
  replaceThread(threadId: string, entries: readonly RecallEntry[]): Promise<void>;
  /** Writes `changes` on their own (not with a head write), idempotently by message id. */
  record(changes: RecallChanges): Promise<void>;
  /** The vectors of the thread's messages per embedding model, for the optional semantic ranking (a cache). */
  readonly vectors: RecallVectors;
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

export function backendFor(saver: BaseCheckpointSaver, recallLanguage: string): Backend {
  if (isPostgresSaver(saver)) {
    const pool = saver.pool as unknown as PostgresPool;
    const schema = saver.options.schema;
    const s = quoteIdentifier(schema);
    let indexed: Promise<void> | undefined;
    const connection =
      (
        pool as unknown as {
          options?: { host?: unknown; port?: unknown; database?: unknown; connectionString?: unknown };
        }
      ).options ?? {};
    const server =
      typeof connection.connectionString === "string"
        ? connection.connectionString.replace(/\/\/[^@/]*@/, "//")
        : `${String(connection.host ?? "")}:${String(connection.port ?? "")}/${String(connection.database ?? "")}`;
    return {
      name: "postgres",
      identity: `postgres:${server}#${schema}`,
      writer: new PostgresWriter(saver, recallLanguage),
      recall: new PostgresRecall(pool, schema, validateLanguage(recallLanguage)),
      prunable: true,
      prune: (threadId, plan) => prunePostgres(pool, schema, validateLanguage(recallLanguage), threadId, plan),
      pruneTables: postgresPruneTables(pool, schema),
      namespacesBefore: async (threadId, before) => {
        const result = await pool.query(
          `SELECT checkpoint_ns FROM ${s}.checkpoints WHERE thread_id = $1 AND checkpoint_ns <> '' GROUP BY checkpoint_ns HAVING max(checkpoint_id) < $2`,
          [threadId, before],
        );
        return result.rows.map((row) => String(row.checkpoint_ns));
      },
      leases: new PostgresLeases(pool, schema),
      changedSince: async (cursor) => {
        // An index on the heads' ids (created once, without blocking writes) answers a pass where nothing changed
        // by reading no row of a thread.
        indexed ??= createRootIdIndex(pool, schema).then(
          (built) => {
            // Another worker holds the build: this pass goes without the index, a later one looks again.
            if (!built) indexed = undefined;
          },
          (error: unknown) => {
            indexed = undefined;
            throw error;
          },
        );
        await indexed;
        const result = await pool.query(
          `SELECT thread_id, max(checkpoint_id) AS head FROM ${s}.checkpoints WHERE checkpoint_ns = '' AND checkpoint_id > $1 GROUP BY thread_id`,
          [cursor],
        );
        return result.rows.map((row) => ({ threadId: String(row.thread_id), headCheckpointId: String(row.head) }));
      },
      headId: async (threadId) => {
        const result = await pool.query(
          `SELECT checkpoint_id FROM ${s}.checkpoints WHERE thread_id = $1 AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1`,
          [threadId],
        );
        return result.rows[0] ? String(result.rows[0].checkpoint_id) : undefined;
      },
      storage: async (threadId) => {
        const result = await pool.query(
          `SELECT (SELECT count(*) FROM ${s}.checkpoints WHERE thread_id = $1) AS checkpoints,
                  (SELECT count(*) FROM ${s}.checkpoints WHERE thread_id = $1 AND checkpoint_ns <> '') AS subgraph_checkpoints,
                  (SELECT coalesce(sum(pg_column_size(checkpoint) + pg_column_size(metadata)), 0) FROM ${s}.checkpoints WHERE thread_id = $1) AS checkpoint_bytes,
                  (SELECT coalesce(sum(octet_length(blob)), 0) FROM ${s}.checkpoint_blobs WHERE thread_id = $1) AS blob_bytes,
                  (SELECT coalesce(sum(octet_length(blob)), 0) FROM ${s}.checkpoint_writes WHERE thread_id = $1) AS write_bytes`,
          [threadId],
        );
        const row = result.rows[0] ?? {};
        return {
          checkpoints: Number(row.checkpoints),
          subgraphCheckpoints: Number(row.subgraph_checkpoints),
          checkpointBytes: Number(row.checkpoint_bytes) + Number(row.blob_bytes),
          writeBytes: Number(row.write_bytes),
        };
      },
      listThreads: async () => {
        // The head of each thread (the highest id), its size with the blobs of the versions it names.
        const result = await pool.query(
          `SELECT h.thread_id, h.checkpoint_id, h.checkpoints,
                  pg_column_size(h.checkpoint) + coalesce((SELECT sum(octet_length(b.blob)) FROM ${s}.checkpoint_blobs b
                    WHERE b.thread_id = h.thread_id AND b.checkpoint_ns = '' AND b.version = h.checkpoint->'channel_versions'->>b.channel), 0) AS bytes
           FROM (SELECT DISTINCT ON (c.thread_id) c.thread_id, c.checkpoint_id, c.checkpoint,
                        count(*) OVER (PARTITION BY c.thread_id) AS checkpoints
                 FROM ${s}.checkpoints c WHERE c.checkpoint_ns = '' ORDER BY c.thread_id, c.checkpoint_id DESC) h
           ORDER BY h.thread_id`,
        );
        return result.rows.map((row) => ({
          threadId: String(row.thread_id),
          checkpoints: Number(row.checkpoints),
          headCheckpointId: String(row.checkpoint_id),
          headBytes: Number(row.bytes),
        }));
      },
    };
  }
  if (isSqliteSaver(saver)) {
    const db = saver.db;
    return {
      name: "sqlite",
      identity: `sqlite:${db.name ? resolve(db.name) : "memory"}`,
      writer: new SqliteWriter(saver),
      recall: new SqliteRecall(db),
      prunable: true,
      prune: async (threadId, plan) => pruneSqlite(db, threadId, plan),
      pruneTables: sqlitePruneTables(db),
      file: async (vacuum) => {
        if (vacuum) db.exec("VACUUM");
        const size = db
          .prepare(
            `SELECT page_count * page_size AS bytes, freelist_count * page_size AS free FROM pragma_page_count(), pragma_page_size(), pragma_freelist_count()`,
          )
          .get() as { bytes: number; free: number };
        return { bytes: Number(size.bytes), freeBytes: Number(size.free) };
      },
      namespacesBefore: async (threadId, before) => {
        const rows = db
          .prepare(
            `SELECT checkpoint_ns FROM checkpoints WHERE thread_id = ? AND checkpoint_ns <> '' GROUP BY checkpoint_ns HAVING max(checkpoint_id) < ?`,
          )
          .all(threadId, before) as Array<{ checkpoint_ns: string }>;
        return rows.map((row) => String(row.checkpoint_ns));
      },
      leases: new SqliteLeases(db),
      changedSince: async (cursor) => {
        const exists = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'`).get();
        if (!exists) return [];
        db.exec(
          `CREATE INDEX IF NOT EXISTS compaction_root_checkpoint_ids ON checkpoints (checkpoint_id) WHERE checkpoint_ns = ''`,
        );
        const rows = db
          .prepare(
            `SELECT thread_id AS threadId, MAX(checkpoint_id) AS head FROM checkpoints WHERE checkpoint_ns = '' AND checkpoint_id > ? GROUP BY thread_id`,
          )
          .all(cursor) as Array<{ threadId: string; head: string }>;
        return rows.map((row) => ({ threadId: String(row.threadId), headCheckpointId: String(row.head) }));
      },
      headId: async (threadId) => {
        const exists = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'`).get();
        if (!exists) return undefined;
        const row = db
          .prepare(
            `SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1`,
          )
          .get(threadId) as { checkpoint_id: string } | undefined;
        return row?.checkpoint_id;
      },
      headBytes: async (threadId) => {
        if (!db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'`).get())
          return undefined;
        const row = db
          .prepare(
            `SELECT length(checkpoint) AS bytes, type, json_type(CAST(checkpoint AS TEXT), '$.channel_values.messages') AS kind FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1`,
          )
          .get(threadId) as { bytes: number; type: string | null; kind: string | null } | undefined;
        return row?.type === "json" && row.kind === "array" ? row.bytes : undefined;
      },
      storage: async (threadId) => {
        const exists = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'`).get();
        if (!exists) return undefined;
        const checkpoints = db
          .prepare(
            `SELECT count(*) AS n, sum(checkpoint_ns <> '') AS subgraph, coalesce(sum(length(checkpoint) + length(metadata)), 0) AS bytes FROM checkpoints WHERE thread_id = ?`,
          )
          .get(threadId) as { n: number; subgraph: number | null; bytes: number };
        const writes = db
          .prepare(`SELECT coalesce(sum(length(value)), 0) AS bytes FROM writes WHERE thread_id = ?`)
          .get(threadId) as { bytes: number };
        return {
          checkpoints: Number(checkpoints.n),
          subgraphCheckpoints: Number(checkpoints.subgraph ?? 0),
          checkpointBytes: Number(checkpoints.bytes),
          writeBytes: Number(writes.bytes),
        };
      },
      listThreads: async () => {
        const exists = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'`).get();
        if (!exists) return [];
        const rows = db
          .prepare(
            `SELECT c.thread_id AS threadId, c.checkpoint_id AS headCheckpointId, length(c.checkpoint) AS headBytes, n.checkpoints
             FROM (SELECT thread_id, MAX(checkpoint_id) AS head, COUNT(*) AS checkpoints FROM checkpoints WHERE checkpoint_ns = '' GROUP BY thread_id) n
             JOIN checkpoints c ON c.thread_id = n.thread_id AND c.checkpoint_ns = '' AND c.checkpoint_id = n.head
             ORDER BY c.thread_id`,
          )
          .all() as Array<Record<string, unknown>>;
        return rows.map((row) => ({
          threadId: String(row.threadId),
          checkpoints: Number(row.checkpoints),
          headCheckpointId: String(row.headCheckpointId),
          headBytes: Number(row.headBytes),
        }));
      },
    };
  }
  const listThreads = async (): Promise<ThreadRow[]> => {
    // Best effort: a saver that lists every thread when no thread is named (MemorySaver does).
    const threads = new Map<string, ThreadRow>();
    for await (const tuple of saver.list({ configurable: {} })) {
      const threadId = tuple.config.configurable?.thread_id;
      if (tuple.config.configurable?.checkpoint_ns || threadId === undefined) continue;
      const row = threads.get(String(threadId));
      if (!row)
        threads.set(String(threadId), {
          threadId: String(threadId),
          checkpoints: 1,
          headCheckpointId: tuple.checkpoint.id,
        });
      else {
        row.checkpoints++;
        if (tuple.checkpoint.id > row.headCheckpointId) row.headCheckpointId = tuple.checkpoint.id;
      }
    }
    return [...threads.values()].sort((a, b) => (a.threadId < b.threadId ? -1 : a.threadId > b.threadId ? 1 : 0));
  };
  return {
    name: "generic",
    identity: `generic:${genericIdentity(saver)}`,
    writer: new GenericWriter(saver),
    leases: genericLeases(saver),
    // No index here: every head is listed, and those above the cursor kept.
    changedSince: async (cursor) =>
      (await listThreads())
        .filter((row) => row.headCheckpointId > cursor)
        .map(({ threadId, headCheckpointId }) => ({ threadId, headCheckpointId })),
    listThreads,
    recall: memoryRecallFor(saver),
    headId: async (threadId) =>
      (await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } }))?.checkpoint.id,
    storage: async () => undefined,
    prunable: isMemorySaver(saver),
    namespacesBefore: async (threadId, before) => {
      if (!isMemorySaver(saver)) return [];
      return Object.entries(saver.storage[threadId] ?? {})
        .filter(
          ([namespace, checkpoints]) =>
            namespace !== "" &&
            Object.keys(checkpoints).length > 0 &&
            Object.keys(checkpoints).every((id) => id < before),
        )
        .map(([namespace]) => namespace);
    },
    prune: async (threadId, plan) => {
      if (isMemorySaver(saver)) return pruneMemory(saver, memoryRecallFor(saver), threadId, plan);
      throw unsupportedPrune(saver);
    },
  };
}
