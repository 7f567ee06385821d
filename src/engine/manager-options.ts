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

/** What a HistoryManager's compactions read: the resolved settings and the checkpointer's store. */
export type ManagerSettings = Settings & { store: ThreadStore };

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
