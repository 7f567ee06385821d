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
  | "STORE_CORRUPT";

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
  const corrupt = error instanceof SyntaxError || (typeof sqliteCode === "string" && /^SQLITE_(CORRUPT|NOTADB)/.test(sqliteCode));
  if (!corrupt) return error;
  return new CompactionError({
    code: "STORE_CORRUPT",
    value: threadId,
    message: `thread ${JSON.stringify(threadId)}: a stored checkpoint could not be read (${(error as Error).message}); the store may be corrupted: check it (SQLite: PRAGMA integrity_check) or restore a backup. Nothing was written.`,
    cause: error,
  });
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
      message: `${method}() needs config.configurable.thread_id to know which thread to compact; got ${describeValue(threadId)}. Pass { configurable: { thread_id: "..." } }.`,
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
