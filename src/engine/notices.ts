/**
 * Notices: what a user should know that is not an error — compaction goes on, but not as configured. Each runtime
 * hands its `onCompactionNotice` here; without one, a notice that says the configuration does less than asked is a
 * process warning (`process.emitWarning`, code `LANGGRAPH_COMPACTION_<code>`), so nothing that does less than it was
 * told does it silently. Said once per thread and code.
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

/** The notice of a compaction of `threadId` that kept less than `asked`, to end under `ceiling` (the limit `limit`). */
export function keptLessNotice(
  threadId: string,
  asked: string,
  ceiling: number | undefined,
  limit: number | undefined,
): KeptLessNotice {
  const message = `thread ${JSON.stringify(threadId)}: a compaction kept less than ${asked}, which would not have ended under the ceiling of ${ceiling} tokens (the limit is ${limit}); lower keep or raise the limit to keep that much.`;
  return { code: "KEPT_LESS", threadId, asked, message };
}

export type EngineNotice = KeptLessNotice | CannotCompactNotice | UsageIgnoredNotice;

/** Notices that are warnings when no handler listens. */
const WARNINGS = new Set<EngineNotice["code"]>(["KEPT_LESS", "CANNOT_COMPACT"]);

/** The (thread, code) pairs told, at most this many remembered (the oldest forgotten first). */
const REMEMBERED = 10_000;

export class Notices {
  private readonly told = new Set<string>();

  constructor(private readonly handler?: (notice: EngineNotice) => unknown) {}

  /** Tells `notice` once for its thread and code. */
  once(notice: KeptLessNotice | CannotCompactNotice): void {
    const key = `${notice.threadId}\u0000${notice.code}`;
    if (this.told.has(key)) return;
    this.told.add(key);
    if (this.told.size > REMEMBERED) this.told.delete(this.told.values().next().value!);
    this.say(notice);
  }

  /** Tells `notice` (to the handler, else as a warning when it is one). A handler that throws is not the caller's concern. */
  say(notice: EngineNotice): void {
    if (this.handler) {
      try {
        void Promise.resolve(this.handler(notice)).catch(() => undefined);
      } catch {
        // A notice never breaks compaction.
      }
      return;
    }
    if (WARNINGS.has(notice.code)) process.emitWarning(notice.message, { code: `LANGGRAPH_COMPACTION_${notice.code}` });
  }
}
