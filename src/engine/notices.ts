/**
 * Notices: what a user should know that is not an error — compaction goes on, but not as configured. Each is a
 * process warning (`process.emitWarning`, code `LANGGRAPH_COMPACTION_<code>`: `process.on("warning")` hears them), so
 * nothing that does less than it was told does it silently, and no handler has to be installed for it to be said.
 * Said once per thread and code (once per runtime for a notice of no thread).
 */
import type { UsageIgnoredNotice } from "./calibration.js";

/** A compaction kept less than `keep` asked for: that much would not have ended under the ceiling. */
export interface KeptLessNotice {
  code: "KEPT_LESS";
  threadId: string;
  /** What was asked, in words ("keep.messages 1000"). */
  asked: string;
  message: string;
}

/** A runtime placed where it cannot compact (a graph without the reducer that lets it remove messages, say). */
export interface CannotCompactNotice {
  code: "CANNOT_COMPACT";
  threadId: string;
  message: string;
}

/** Compactions fail and nothing listens to `onCompactionError`: said once, with the first failure's error. */
export interface CompactionFailingNotice {
  code: "COMPACTION_FAILING";
  threadId?: string;
  error: unknown;
  message: string;
}

/**
 * The notice of a compaction of `threadId` that kept less than `asked`: `why` says why that much could not be kept
 * (it would not end under the ceiling, or it is the whole thread).
 */
export function keptLessNotice(threadId: string, asked: string, why: string): KeptLessNotice {
  const message = `thread ${JSON.stringify(threadId)}: a compaction kept less than ${asked}: ${why}.`;
  return { code: "KEPT_LESS", threadId, asked, message };
}

export type EngineNotice = KeptLessNotice | CannotCompactNotice | UsageIgnoredNotice | CompactionFailingNotice;

/** The (thread, code) pairs told, at most this many remembered (the oldest forgotten first). */
const REMEMBERED = 10_000;

export class Notices {
  private readonly told = new Set<string>();

  /** Tells `notice` once for its thread and code. */
  once(notice: KeptLessNotice | CannotCompactNotice | CompactionFailingNotice): void {
    const key = `${notice.threadId ?? ""}\u0000${notice.code}`;
    if (this.told.has(key)) return;
    this.told.add(key);
    if (this.told.size > REMEMBERED) this.told.delete(this.told.values().next().value!);
    this.say(notice);
  }

  /** Tells `notice`: a process warning. */
  say(notice: EngineNotice): void {
    process.emitWarning(notice.message, { code: `LANGGRAPH_COMPACTION_${notice.code}` });
  }
}
