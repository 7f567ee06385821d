/**
 * Typed errors. Every error a caller can trigger carries a stable `code`, the offending value when there is one,
 * and a message that says what was wrong and what to do. Recognise them with `CompactionError.isInstance(error)`
 * (a marker check that survives duplicated copies of this package, unlike `instanceof`).
 */

import { holdsSecret, redactSecrets } from "./secrets.js";

const MARKER = Symbol.for("langgraph-compaction.error");

function maskedCause(cause: unknown): unknown {
  if (!(cause instanceof Error)) return typeof cause === "string" ? redactSecrets(cause) : cause;
  const text = `${cause.message}\n${cause.stack ?? ""}\n${safeJson(cause)}`;
  if (!holdsSecret(text)) return cause;
  const masked = new Error(redactSecrets(cause.message));
  masked.name = cause.name;
  masked.stack = redactSecrets(cause.stack ?? "");
  const status = (cause as { status?: unknown }).status;
  if (status !== undefined) Object.assign(masked, { status });
  return masked;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "";
  }
}

export type CompactionErrorCode =
  | "INVALID_ARGUMENT"
  | "MISSING_THREAD_ID"
  | "MISSING_CHECKPOINTER"
  | "THREAD_NOT_FOUND"
  | "THREAD_BUSY"
  | "INVALID_HISTORY"
  | "WRITE_CONFLICT"
  | "SUMMARIZER_FAILED"
  | "STORE_UNAVAILABLE"
  | "CHECKPOINT_NOT_FOUND"
  | "COMPACTION_PAUSED"
  | "STORE_CORRUPT"
  | "STORE_READ_ONLY"
  | "STORE_LOCKED"
  | "STORE_ERROR"
  | "MISSING_DEPENDENCY"
  | "UNSUPPORTED"
  | "EMBEDDINGS_FAILED";

export interface CompactionErrorOptions {
  code: CompactionErrorCode;
  message: string;
  /** The option or parameter that was wrong, when one was. */
  parameter?: string;
  /** The offending value, when there is one. */
  value?: unknown;
  cause?: unknown;
}

export class CompactionError extends Error {
  readonly [MARKER] = true;
  readonly code: CompactionErrorCode;
  readonly parameter?: string;
  readonly value?: unknown;

  constructor({ code, message, parameter, value, cause }: CompactionErrorOptions) {
    // Secrets are masked here, once for every error; a cause whose text holds one is replaced by a masked copy.
    super(redactSecrets(message), cause === undefined ? undefined : { cause: maskedCause(cause) });
    this.name = "CompactionError";
    this.code = code;
    this.parameter = parameter;
    this.value = value;
  }

  static isInstance(error: unknown): error is CompactionError {
    return typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[MARKER] === true;
  }
}

/** A short, safe rendering of a value for an error message (never dumps a whole history). */
export function describeValue(value: unknown): string {
  if (typeof value === "string") {
    return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
  }
  if (typeof value === "number" || typeof value === "boolean" || value === null || value === undefined) {
    return String(value);
  }
  if (typeof value === "function") return "a function";
  if (Array.isArray(value)) return `an array of ${value.length}`;
  const name = (value as object).constructor?.name;
  return name && name !== "Object" ? `a ${name}` : "an object";
}

export function invalidArgument(parameter: string, value: unknown, expectation: string): CompactionError {
  return new CompactionError({
    code: "INVALID_ARGUMENT",
    parameter,
    value,
    message: `${parameter} must be ${expectation}; got ${describeValue(value)}.`,
  });
}

/**
 * A read error that means the stored data is damaged (undecodable checkpoint bytes, SQLite reporting a malformed
 * file) becomes STORE_CORRUPT naming the thread; any other error is returned unchanged.
 */
export function asStoreReadError(error: unknown, threadId: string): unknown {
  const sqliteCode = (error as { code?: unknown } | undefined)?.code;
  const corrupt =
    error instanceof SyntaxError || (typeof sqliteCode === "string" && /^SQLITE_(CORRUPT|NOTADB)/.test(sqliteCode));
  if (!corrupt) return error;
  return new CompactionError({
    code: "STORE_CORRUPT",
    value: threadId,
    message: `thread ${JSON.stringify(threadId)}: a stored checkpoint could not be read (${(error as Error).message}); the store may be corrupted: check it (SQLite: PRAGMA integrity_check) or restore a backup. Nothing was written.`,
    cause: error,
  });
}

/** node-postgres's own errors (no SQLSTATE) for a connection that was lost or could not be made. */
const PG_CONNECTION_LOST =
  /^(Connection terminated|Client has encountered a connection error|Client was closed|timeout exceeded when trying to connect|Connection ended)/;

/** What a STORE_LOCKED error says. */
export const LOCKED_STORE =
  "another process held the SQLite database's lock past the busy timeout; retry once it is done";

/** SQLite's "database is locked": SQLITE_BUSY (another connection's lock) or SQLITE_LOCKED (one of this connection's). */
export function isLockedError(error: unknown): boolean {
  return /^SQLITE_(BUSY|LOCKED)/.test(String((error as { code?: unknown } | undefined)?.code ?? ""));
}

/**
 * An error of the checkpoint store's driver as a CompactionError with a stable code (anything else — a
 * CompactionError, a bug — is returned unchanged):
 * STORE_CORRUPT (unreadable data), STORE_READ_ONLY (SQLite SQLITE_READONLY / SQLITE_PERM, Postgres 25006 / 42501),
 * STORE_LOCKED (SQLite SQLITE_BUSY / SQLITE_LOCKED: another connection held the lock past the busy timeout),
 * STORE_UNAVAILABLE (SQLite cannot open, disk I/O; Postgres refused the login (28xxx), the connection failed
 * (08xxx, ECONNREFUSED...), the server shut down or terminated the session (57Pxx), node-postgres lost the
 * connection ("Connection terminated unexpectedly")), STORE_ERROR (any other store error). The driver's error is the `cause`.
 */
export function asStoreError(error: unknown, threadId?: string): unknown {
  if (CompactionError.isInstance(error)) return error;
  const read = threadId === undefined ? error : asStoreReadError(error, threadId);
  if (CompactionError.isInstance(read)) return read;
  const code = String((error as { code?: unknown } | undefined)?.code ?? "");
  const name = (error as { name?: unknown } | undefined)?.name;
  const text = (error as Error | undefined)?.message ?? String(error);
  const connectionLost = !code && error instanceof Error && PG_CONNECTION_LOST.test(text);
  // SQLite's errors, Postgres's (a five-character SQLSTATE with a severity) and a failed or lost connection's.
  const fromStore =
    name === "SqliteError" ||
    code.startsWith("SQLITE_") ||
    (/^[0-9A-Z]{5}$/.test(code) && typeof (error as { severity?: unknown }).severity === "string") ||
    /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|EPIPE)$/.test(code) ||
    connectionLost;
  if (!fromStore) return error;
  const subject = threadId === undefined ? "" : `thread ${JSON.stringify(threadId)}: `;
  const of = (kind: CompactionErrorCode, what: string) =>
    new CompactionError({
      code: kind,
      value: threadId,
      message: `${subject}${what} (${code ? `${code}: ` : ""}${text}). Nothing was written.`,
      cause: error,
    });
  if (/^SQLITE_(READONLY|PERM)/.test(code) || code === "25006" || code === "42501")
    return of("STORE_READ_ONLY", "the store cannot be written by this process");
  if (isLockedError(error)) return of("STORE_LOCKED", LOCKED_STORE);
  if (
    /^SQLITE_(CANTOPEN|IOERR|FULL)/.test(code) ||
    /^(28|08|57P)/.test(code) ||
    /^E[A-Z]+$/.test(code) ||
    connectionLost
  ) {
    return of("STORE_UNAVAILABLE", "the store is unavailable");
  }
  return of("STORE_ERROR", "the store failed");
}

/**
 * The thread id of a LangGraph config, or a MISSING_THREAD_ID error naming the call that needed it.
 */
export function requireThreadId(config: unknown, method: string): string {
  const threadId = (config as { configurable?: { thread_id?: unknown } } | undefined)?.configurable?.thread_id;
  if ((typeof threadId !== "string" || threadId === "") && typeof threadId !== "number") {
    throw new CompactionError({
      code: "MISSING_THREAD_ID",
      parameter: "config.configurable.thread_id",
      value: threadId,
      message: `${method}() needs config.configurable.thread_id to know which thread it is for; got ${describeValue(threadId)}. Pass { configurable: { thread_id: "..." } }.`,
    });
  }
  if (typeof threadId === "string" && threadId.includes("\u0000")) {
    throw new CompactionError({
      code: "INVALID_ARGUMENT",
      parameter: "config.configurable.thread_id",
      value: threadId,
      message: `${method}() got a thread_id holding a NUL character (${describeValue(threadId)}): no checkpointer can key a thread by it (Postgres text cannot hold one).`,
    });
  }
  return String(threadId);
}

export function threadNotFound(threadId: string): CompactionError {
  return new CompactionError({
    code: "THREAD_NOT_FOUND",
    value: threadId,
    message: `thread ${JSON.stringify(threadId)} is not in this store (see the list command)`,
  });
}

/** The result of `work`, with any store error (a raw SqliteError, a pg DatabaseError) as a CompactionError. */
export async function storeErrors<T>(threadId: string | undefined, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw asStoreError(error, threadId);
  }
}

/** Failures of the store rather than of one thread: a run over many threads stops at the first (the rest would fail alike). */
const STORE_FAILURES = new Set<CompactionErrorCode>(["STORE_UNAVAILABLE", "STORE_LOCKED", "STORE_READ_ONLY"]);

export function isStoreFailure(error: unknown): boolean {
  return CompactionError.isInstance(error) && STORE_FAILURES.has(error.code);
}
