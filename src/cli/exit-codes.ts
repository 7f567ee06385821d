import { CompactionError, type CompactionErrorCode } from "../errors.js";

/** Distinct exit codes, one per kind of failure, so scripts can tell them apart. */
export const EXIT = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  storeUnavailable: 3,
  notACheckpointStore: 4,
  threadNotFound: 5,
  threadBusy: 6,
  summarizerFailed: 7,
  checkpointNotFound: 8,
  writeConflict: 9,
  storeLocked: 10,
  invalidHistory: 11,
} as const;

const BY_CODE: Partial<Record<CompactionErrorCode, number>> = {
  INVALID_ARGUMENT: EXIT.usage,
  MISSING_THREAD_ID: EXIT.usage,
  STORE_UNAVAILABLE: EXIT.storeUnavailable,
  STORE_CORRUPT: EXIT.notACheckpointStore,
  STORE_READ_ONLY: EXIT.storeUnavailable,
  STORE_LOCKED: EXIT.storeLocked,
  STORE_ERROR: EXIT.storeUnavailable,
  MISSING_DEPENDENCY: EXIT.usage,
  UNSUPPORTED: EXIT.usage,
  THREAD_NOT_FOUND: EXIT.threadNotFound,
  THREAD_BUSY: EXIT.threadBusy,
  SUMMARIZER_FAILED: EXIT.summarizerFailed,
  CHECKPOINT_NOT_FOUND: EXIT.checkpointNotFound,
  WRITE_CONFLICT: EXIT.writeConflict,
  INVALID_HISTORY: EXIT.invalidHistory,
};

export function exitCodeOf(error: unknown): number {
  if (!CompactionError.isInstance(error)) return EXIT.unexpected;
  if (error.code === "INVALID_ARGUMENT" && (error.parameter === "--db" || error.parameter === "--postgres"))
    return EXIT.notACheckpointStore;
  return BY_CODE[error.code] ?? EXIT.unexpected;
}
