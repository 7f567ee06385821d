/**
 * Reading a SQLite store this process cannot write. SQLite cannot open a WAL-mode file read-only when it may not
 * create the `-shm` index beside it (a directory the user cannot write), so the file is read whole into an
 * in-memory copy instead, marked query-only: reading commands work, and any write fails with SQLITE_READONLY.
 * When a `-wal` file holds changes the main file does not have yet, a copy would be stale: that is refused.
 */
import type { SqliteConnection, SqliteDriver } from "../optional-dependency.js";
import { existsSync, readFileSync, statSync } from "node:fs";
import { CompactionError } from "../errors.js";

/** The errors that mean "this process may not write here" rather than "this is not a database". */
export function isReadOnlyOpenError(error: unknown): boolean {
  return /^SQLITE_(READONLY|CANTOPEN|PERM)/.test(String((error as { code?: unknown } | undefined)?.code ?? ""));
}

const HEADER = Buffer.from("SQLite format 3\u0000", "latin1");

export function openReadOnlySnapshot(Database: SqliteDriver, path: string, cause: unknown): SqliteConnection {
  const wal = `${path}-wal`;
  if (existsSync(wal) && statSync(wal).size > 0) {
    throw new CompactionError({
      code: "STORE_READ_ONLY",
      value: path,
      message: `${path} cannot be read by this process: its write-ahead log ${wal} holds changes not yet in the file, and SQLite needs write access to the directory to read them. Run as a user who can write the directory, or fold the log in first (PRAGMA wal_checkpoint) as its owner.`,
      cause,
    });
  }
  const bytes = readFileSync(path);
  if (bytes.length < 100 || !bytes.subarray(0, HEADER.length).equals(HEADER)) {
    throw new CompactionError({
      code: "INVALID_ARGUMENT",
      parameter: "--db",
      value: path,
      message: `${path} is not a SQLite database`,
      cause,
    });
  }
  // Bytes 18-19 say "WAL mode" (2); an in-memory database has no WAL, so the copy is marked rollback mode (1).
  bytes[18] = 1;
  bytes[19] = 1;
  const db = new Database(bytes);
  db.pragma("query_only = ON");
  return db;
}
