/**
 * Opening a checkpoint store from a SQLite path or a Postgres URL, refusing — before anything is written — a
 * missing file, a file that is not SQLite, a database that is not a LangGraph checkpoint store, or an unreachable
 * server. SQLite is opened with a busy timeout so the store can be used while an application writes to it (WAL).
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import type BetterSqlite3 from "better-sqlite3";
import { existsSync, statSync } from "node:fs";
import type pg from "pg";
import { CompactionError } from "../errors.js";
import { importOptional, requireOptional } from "../optional-dependency.js";
import { isReadOnlyOpenError, openReadOnlySnapshot } from "./sqlite-snapshot.js";
import { quoteIdentifier } from "./sql.js";

export interface ThreadSummaryRow {
  threadId: string;
  checkpoints: number;
}

export interface OpenedStore {
  kind: "sqlite" | "postgres";
  saver: BaseCheckpointSaver;
  /** Opened as a read-only copy (this process cannot write the SQLite file): reading commands only. */
  readOnly: boolean;
  /** Threads with at least one root-namespace checkpoint, and how many checkpoints each has. */
  listThreads(): Promise<ThreadSummaryRow[]>;
  /** Rows in the checkpoints table (root namespace) for a thread: used to prove nothing was written. */
  countCheckpoints(threadId: string): Promise<number>;
  close(): Promise<void>;
}

export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

export async function openSqliteStore(path: string, { busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS } = {}): Promise<OpenedStore> {
  if (!existsSync(path) || !statSync(path).isFile()) {
    throw new CompactionError({ code: "STORE_UNAVAILABLE", value: path, message: `no SQLite file at ${path}` });
  }
  const Database = requireOptional<typeof BetterSqlite3>("better-sqlite3", "a SQLite checkpoint store");
  const { SqliteSaver } = await importOptional("@langchain/langgraph-checkpoint-sqlite", "a SQLite checkpoint store", () => import("@langchain/langgraph-checkpoint-sqlite"));
  let db: BetterSqlite3.Database | undefined;
  let readOnly = false;
  try {
    db = new Database(path, { fileMustExist: true });
    db.pragma(`busy_timeout = ${Math.floor(busyTimeoutMs)}`);
    requireCheckpointTables(db, path);
  } catch (error) {
    db?.close();
    if (CompactionError.isInstance(error)) throw error;
    if (!isReadOnlyOpenError(error)) {
      throw new CompactionError({ code: "INVALID_ARGUMENT", parameter: "--db", value: path, message: `${path} is not a SQLite database (${(error as Error).message})`, cause: error });
    }
    // Readable but not writable by this process (e.g. a WAL file in a directory it cannot write): read a copy.
    db = openReadOnlySnapshot(Database, path, error);
    readOnly = true;
    requireCheckpointTables(db, path);
  }
  return sqliteStore(new SqliteSaver(db), db, readOnly);
}

function sqliteStore(saver: BaseCheckpointSaver, db: BetterSqlite3.Database, readOnly: boolean): OpenedStore {
  return {
    kind: "sqlite",
    readOnly,
    saver,
    listThreads: async () =>
      (db.prepare(`SELECT thread_id AS threadId, COUNT(*) AS checkpoints FROM checkpoints WHERE checkpoint_ns = '' GROUP BY thread_id ORDER BY thread_id`).all() as ThreadSummaryRow[]).map(
        (row) => ({ threadId: String(row.threadId), checkpoints: Number(row.checkpoints) }),
      ),
    countCheckpoints: async (threadId) =>
      Number((db.prepare(`SELECT COUNT(*) AS n FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ''`).get(threadId) as { n: number }).n),
    close: async () => {
      db.close();
    },
  };
}

function requireCheckpointTables(db: BetterSqlite3.Database, path: string): void {
  const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name: string }>;
  const names = new Set(tables.map((table) => table.name));
  if (!names.has("checkpoints") || !names.has("writes")) {
    throw new CompactionError({
      code: "INVALID_ARGUMENT",
      parameter: "--db",
      value: path,
      message: `${path} is a SQLite database but not a LangGraph checkpoint store (no checkpoints/writes tables)`,
    });
  }
}

function redact(url: string): string {
  return url.replace(/\/\/([^:/@]+):([^@]+)@/, "//$1:***@");
}

export async function openPostgresStore(url: string, { schema = "public", connectTimeoutMs = 5_000 } = {}): Promise<OpenedStore> {
  const { Pool } = requireOptional<typeof pg>("pg", "a Postgres checkpoint store");
  const { PostgresSaver } = await importOptional("@langchain/langgraph-checkpoint-postgres", "a Postgres checkpoint store", () => import("@langchain/langgraph-checkpoint-postgres"));
  const pool = new Pool({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs, max: 4 });
  pool.on("error", () => undefined);
  const quoted = quoteIdentifier(schema);
  try {
    const found = await pool.query(`SELECT to_regclass($1) AS checkpoints, to_regclass($2) AS blobs`, [`${quoted}.checkpoints`, `${quoted}.checkpoint_blobs`]);
    if (!found.rows[0]?.checkpoints || !found.rows[0]?.blobs) {
      await pool.end();
      throw new CompactionError({
        code: "INVALID_ARGUMENT",
        parameter: "--postgres",
        value: redact(url),
        message: `${redact(url)} (schema ${schema}) is not a LangGraph checkpoint store: no checkpoints/checkpoint_blobs tables`,
      });
    }
  } catch (error) {
    if (CompactionError.isInstance(error)) throw error;
    await pool.end().catch(() => undefined);
    throw new CompactionError({ code: "STORE_UNAVAILABLE", value: redact(url), message: `cannot reach Postgres at ${redact(url)}: ${(error as Error).message}`, cause: error });
  }
  const saver = new PostgresSaver(pool, undefined, { schema });
  return {
    kind: "postgres",
    readOnly: false,
    saver,
    listThreads: async () =>
      (await pool.query(`SELECT thread_id, COUNT(*) AS checkpoints FROM ${quoted}.checkpoints WHERE checkpoint_ns = '' GROUP BY thread_id ORDER BY thread_id`)).rows.map((row) => ({
        threadId: String(row.thread_id),
        checkpoints: Number(row.checkpoints),
      })),
    countCheckpoints: async (threadId) =>
      Number((await pool.query(`SELECT COUNT(*) AS n FROM ${quoted}.checkpoints WHERE thread_id = $1 AND checkpoint_ns = ''`, [threadId])).rows[0].n),
    close: async () => pool.end(),
  };
}
