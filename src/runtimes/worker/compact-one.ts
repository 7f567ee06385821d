/**
 * One thread compacted from outside the application (a worker's job, a `compactThreads` lane): the engine's
 * compaction (which leaves busy and interrupted threads alone, and prunes with `keepCheckpoints`), told as the
 * thread's outcome. Never throws: a failure is an outcome. The store's compare-and-swap is the fence: a compaction
 * that lost to a turn writes nothing (a conflict), one a run superseded right after is found by a sweep.
 */
import { asStoreError } from "../../errors.js";
import type { HistoryManager } from "../../engine/history-manager.js";
import type { ConflictReport, SkippedReport } from "../../engine/report.js";
import type { SkipKind, ThreadOutcome } from "./worker-options.js";

/**
 * `signal`: stopping abandons the summary in flight (nothing written). `busyWaitMs`: how long a summary made waits to
 * be written while the thread is busy (a turn runs) or its manager's write window says wait; 0: it is dropped then.
 * A thread busy before its summary starts is left at once.
 */
export async function compactOne(
  manager: HistoryManager,
  threadId: string,
  { force = false, signal, busyWaitMs = 0 }: { force?: boolean; signal?: AbortSignal; busyWaitMs?: number } = {},
): Promise<ThreadOutcome> {
  try {
    const report = await manager.compactThread(
      { configurable: { thread_id: threadId } },
      { busyWaitMs, ...(force ? { force: true } : {}), ...(signal ? { signal } : {}) },
    );
    const headId = report.previousCheckpointId ?? undefined;
    if (report.status === "compacted")
      return {
        threadId,
        status: "compacted",
        tokensBefore: report.tokensBefore,
        tokensAfter: report.tokensAfter,
        checkpointId: report.newCheckpointId,
        ...(headId ? { headId } : {}),
      };
    return {
      threadId,
      status: "skipped",
      reason: report.status === "conflict" ? `conflict: ${report.reason}` : report.reason,
      skip: skipKind(report),
      tokensBefore: report.tokensBefore,
      ...(headId ? { headId } : {}),
    };
  } catch (error) {
    if (signal?.aborted)
      return {
        threadId,
        status: "skipped",
        reason: "stopped: the summary in flight was abandoned, nothing written",
        skip: "stopped",
      };
    const typed = asStoreError(error, threadId);
    return { threadId, status: "failed", reason: typed instanceof Error ? typed.message : String(typed), error: typed };
  }
}

/** Why the engine left a thread alone, from the report's code (never its wording). */
function skipKind(report: SkippedReport | ConflictReport): SkipKind {
  if (report.status === "conflict") return "conflict";
  if (report.code === "INTERRUPTED") return "interrupted";
  if (report.code === "BUSY") return "busy";
  if (report.code === "UNDER_LIMIT") return "under limit";
  return "nothing to compact";
}
