/**
 * `pruneThread`: delete the checkpoints of a thread that the transcript makes redundant, keeping the head and the
 * newest `keep` (engine/prune-plan.ts says exactly what stays). Every message of a deleted checkpoint is in a kept one
 * or in the transcript first, in the same transaction; a turn that lands meanwhile makes the prune start again from
 * the new head, so neither the head nor a checkpoint a turn started from is ever deleted.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { requireThreadId } from "../errors.js";
import { argument } from "../options/check.js";
import { DEFAULT_KEEP_CHECKPOINTS, keepCheckpoints } from "./options.js";
import { planPrune } from "./prune-plan.js";
import { unsupportedPrune } from "../store/prune-writers.js";
import { threadStoreFor, type ThreadStore } from "../store/thread-store.js";
import type { CompactedReport, PruneOptions, PruneReport } from "./report.js";
import { retrying, type Attempt } from "./retry.js";

const ATTEMPTS = 3;

/**
 * @throws CompactionError MISSING_THREAD_ID; INVALID_ARGUMENT for a bad `keep`; THREAD_NOT_FOUND; UNSUPPORTED for a
 *   saver other than SQLite, Postgres or MemorySaver; STORE_* when the store fails (nothing is deleted then).
 */
export async function pruneThread(
  checkpointer: BaseCheckpointSaver,
  config: unknown,
  options: PruneOptions = {},
): Promise<PruneReport> {
  const threadId = requireThreadId(config, "pruneThread");
  const keep = options.keep ?? DEFAULT_KEEP_CHECKPOINTS;
  return pruneStoredThread(threadStoreFor(checkpointer), threadId, keep, options.dryRun ?? false);
}

export async function pruneStoredThread(
  store: ThreadStore,
  threadId: string,
  keep: number,
  dryRun: boolean,
): Promise<PruneReport> {
  argument("keep", keep, keepCheckpoints);
  // Before reading anything: a saver this library cannot delete from.
  if (!store.prunable) throw unsupportedPrune(store.saver);
  return retrying({ attempts: ATTEMPTS }, async (): Promise<Attempt<PruneReport>> => {
    const plan = (await planPrune(store, threadId, { keep }))!;
    const checkpointsBefore = plan.kept.length + plan.remove.length;
    const report = {
      threadId,
      headCheckpointId: plan.headCheckpointId,
      checkpointsBefore,
      kept: plan.kept.length,
      removed: plan.remove.length,
      backfilled: plan.backfill.length,
    };
    if (plan.remove.length === 0)
      return { done: { ...report, status: "nothing", reason: `${checkpointsBefore} checkpoint(s), all kept` } };
    if (dryRun) return { done: { ...report, status: "dry-run" } };
    const outcome = await store.prune(threadId, plan);
    if (outcome.status === "pruned") return { done: { ...report, status: "pruned" } };
    return {
      again: {
        ...report,
        removed: 0,
        backfilled: 0,
        status: "conflict",
        reason: `the head kept moving (now ${outcome.headCheckpointId ?? "nothing"}): nothing deleted`,
      },
    };
  });
}

/** A landed compaction followed by a prune keeping `keep` checkpoints: its outcome goes into the report. */
export async function prunedAfter(store: ThreadStore, keep: number, report: CompactedReport): Promise<CompactedReport> {
  try {
    const pruned = await pruneStoredThread(store, report.threadId, keep, false);
    return {
      ...report,
      pruned: {
        status: pruned.status,
        removed: pruned.removed,
        backfilled: pruned.backfilled,
        ...(pruned.reason ? { reason: pruned.reason } : {}),
      },
    };
  } catch (error) {
    return {
      ...report,
      pruned: {
        status: "failed",
        removed: 0,
        backfilled: 0,
        reason: error instanceof Error ? error.message : String(error),
      },
    };
  }
}
