/**
 * The part of a better-sqlite3 `Database` this library uses, declared here so the published types compile in a
 * consumer's strict project without `@types/better-sqlite3`. A better-sqlite3 `Database` (`sqliteSaver.db`)
 * satisfies it.
 */
export interface SqliteStatement {
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** A better-sqlite3 transaction function: call it, or `.immediate()` to take the write lock first. */
export interface SqliteTransaction<T> {
  (): T;
  immediate(): T;
}

export interface SqliteDatabase {
  /** The file (":memory:" or "" for a database no second connection can open). */
  readonly name?: string;
  readonly memory?: boolean;
  readonly readonly?: boolean;
  /** True while a transaction is open on the connection. */
  readonly inTransaction?: boolean;
  prepare(source: string): SqliteStatement;
  exec(source: string): unknown;
  transaction<T>(fn: () => T): SqliteTransaction<T>;
}
