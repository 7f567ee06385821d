/**
 * Opening a SQLite checkpoint store from its path (the script's `--db`), refusing — before anything is written — a
 * missing file, a file that is not SQLite, or a database that is not a LangGraph checkpoint store. It is opened with
 * a busy timeout so the store can be used while an application writes to it: a lock held past it is STORE_LOCKED,
 * never mistaken for a file that is not SQLite.
 */
import { existsSync, statSync } from "node:fs";
import { CompactionError, isLockedError, LOCKED_STORE } from "../errors.js";
import {
  importOptional,
  isUnbuiltNativeModule,
  sqliteDriver,
  type SqliteConnection,
  unbuiltSqlite,
} from "../optional-dependency.js";
import { isReadOnlyOpenError, openReadOnlySnapshot } from "./sqlite-snapshot.js";
import { DEFAULT_RECALL_LANGUAGE } from "./recall-index/types.js";
import { threadStoreFor } from "./thread-store.js";

export type { OpenedStore } from "./opened-store.js";
import type { OpenedStore } from "./opened-store.js";

export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

export async function openSqliteStore(
  path: string,
  { busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS, recallLanguage = DEFAULT_RECALL_LANGUAGE } = {},
): Promise<OpenedStore> {
  if (!existsSync(path) || !statSync(path).isFile()) {
    throw new CompactionError({ code: "STORE_UNAVAILABLE", value: path, message: `no SQLite file at ${path}` });
  }
  const Database = sqliteDriver("a SQLite checkpoint store", ["@langchain/langgraph-checkpoint-sqlite"]);
  const { SqliteSaver } = await importOptional(
    "@langchain/langgraph-checkpoint-sqlite",
    "a SQLite checkpoint store",
    () => import("@langchain/langgraph-checkpoint-sqlite"),
  );
  let db: SqliteConnection | undefined;
  let readOnly = false;
  try {
    db = new Database(path, { fileMustExist: true });
    db.pragma(`busy_timeout = ${Math.floor(busyTimeoutMs)}`);
    requireCheckpointTables(db, path);
  } catch (error) {
    db?.close();
    if (CompactionError.isInstance(error)) throw error;
    if (isUnbuiltNativeModule(error)) throw unbuiltSqlite(error);
    if (isLockedError(error)) {
      throw new CompactionError({
        code: "STORE_LOCKED",
        value: path,
        message: `${path}: ${LOCKED_STORE} (waited ${Math.floor(busyTimeoutMs)} ms). Nothing was written.`,
        cause: error,
      });
    }
    if (!isReadOnlyOpenError(error)) {
      throw new CompactionError({
        code: "INVALID_ARGUMENT",
        parameter: "--db",
        value: path,
        message: `${path} is not a SQLite database (${(error as Error).message})`,
        cause: error,
      });
    }
    // Readable but not writable by this process (e.g. a WAL file in a directory it cannot write): read a copy.
    db = openReadOnlySnapshot(Database, path, error);
    readOnly = true;
    requireCheckpointTables(db, path);
  }
  // The driver's own Database, typed here by the part this library uses of it.
  const saver = new SqliteSaver(db as unknown as ConstructorParameters<typeof SqliteSaver>[0]);
  const opened = db;
  return {
    kind: "sqlite",
    readOnly,
    saver,
    threads: threadStoreFor(saver, { recallLanguage }),
    close: async () => void opened.close(),
  };
}

function requireCheckpointTables(db: SqliteConnection, path: string): void {
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
