/**
 * HistoryManager's options and the settings its compactions read: the shared vocabulary (options.ts) with the
 * checkpointer and `keepCheckpoints`, resolved by the one resolver (settings.ts), with the thread store.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import type { z } from "zod";
import { CompactionError } from "../errors.js";
import { satisfying } from "../options/rules.js";
import type { ThreadStore } from "../store/thread-store.js";
import { COMPACTION_OPTIONS, keepCheckpoints } from "./options.js";
import type { Settings } from "./settings.js";
import type { RetryPolicy } from "./retry.js";

export type { CompactOverrides, PrepareOptions } from "./call-options.js";

/** Compare-and-swap attempts before a compaction reports a conflict (and summaries, when its prefix changed). */
export const MAX_WRITE_ATTEMPTS = 3;
/** A summary slower than this is abandoned and nothing is written, unless its summarizer states its own `timeoutMs`. */
export const SUMMARY_TIMEOUT_MS = 120_000;
/** How long a compaction waits for a gap between turns on a thread busy with a run. */
export const BUSY_WAIT_MS = 5_000;

export const MANAGER_OPTIONS = COMPACTION_OPTIONS.extend({
  /** The store holding the threads. */
  checkpointer: satisfying<BaseCheckpointSaver>(() => true, "a LangGraph checkpoint saver"),
  /**
   * After each compaction this manager writes, prune the thread to its newest `keepCheckpoints` checkpoints
   * (`pruneThread`: the transcript holds every message first). @default keep every checkpoint
   */
  keepCheckpoints: keepCheckpoints.optional(),
});

export type HistoryManagerOptions = z.input<typeof MANAGER_OPTIONS>;

/**
 * When a writer outside the application's process writes (the worker): right after a turn ends (the head written
 * within `freshMs`), or onto a quiet thread (no write for `quietMs`). Between the two, a next turn may have read the
 * head and not written yet, and its next checkpoint, made from what it read, would supersede the write: the write
 * waits for the end of that turn instead (a busy head's wait, looking at the head twice per `freshMs`).
 */
export interface WriteWindow {
  freshMs: number;
  quietMs: number;
}

/** The retry policy of a compaction's writes (retry.ts): `busyWaitMs` for a busy head, looked at as the window asks. */
export function writePolicy(settings: ManagerSettings, busyWaitMs: number, signal?: AbortSignal): RetryPolicy {
  return {
    attempts: MAX_WRITE_ATTEMPTS,
    waitMs: busyWaitMs,
    signal,
    ...(settings.writeWindow ? { longestPauseMs: Math.max(1, Math.floor(settings.writeWindow.freshMs / 2)) } : {}),
  };
}

/** What a HistoryManager's compactions read: the resolved settings and the checkpointer's store. */
export type ManagerSettings = Settings & { store: ThreadStore; writeWindow?: WriteWindow };

/** The checkpointer a caller gave, when it is a saver. @throws CompactionError MISSING_CHECKPOINTER otherwise. */
export function requireCheckpointer(checkpointer: unknown): BaseCheckpointSaver {
  if (
    typeof checkpointer !== "object" ||
    checkpointer === null ||
    typeof (checkpointer as BaseCheckpointSaver).getTuple !== "function" ||
    typeof (checkpointer as BaseCheckpointSaver).put !== "function"
  ) {
    throw new CompactionError({
      code: "MISSING_CHECKPOINTER",
      parameter: "checkpointer",
      value: checkpointer,
      message: `checkpointer must be a LangGraph checkpoint saver (MemorySaver, SqliteSaver, PostgresSaver...); got ${checkpointer === undefined ? "none" : typeof checkpointer}`,
    });
  }
  return checkpointer as BaseCheckpointSaver;
}
