/**
 * Deleting what a prune plan removes, per backend (prune-sqlite.ts, prune-postgres.ts, prune-memory.ts), in one
 * transaction with the transcript entries it must write first, and only while the head is still the one the plan was
 * made from (a turn that landed meanwhile: "conflict", nothing deleted). What they share: the outcome, the phases a
 * crash test stops at, the rule of a plan still valid.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { CompactionError } from "../errors.js";
import type { PrunePlan } from "./prune-plan.js";

/** The error of a prune on a saver this library cannot delete from. */
export function unsupportedPrune(saver: BaseCheckpointSaver): CompactionError {
  const name = saver.constructor?.name;
  return new CompactionError({
    code: "UNSUPPORTED",
    value: name,
    message: `pruning needs a SqliteSaver, a PostgresSaver or a MemorySaver; ${name ?? "this saver"} has no way to delete checkpoints that this library knows. Nothing was deleted.`,
  });
}

export type PruneOutcome = { status: "pruned" } | { status: "conflict"; headCheckpointId: string | null };

/** The step a crash test stops a prune at (SIGKILL from inside, at a named phase). */
export type PrunePhase = "prune:in-transaction" | "prune:backfilled" | "prune:deleted";
export let onPhase: ((phase: PrunePhase) => void) | undefined;
/** Tests: called at each phase of a prune's transaction. */
export function onPrunePhase(hook: ((phase: PrunePhase) => void) | undefined): void {
  onPhase = hook;
}

/**
 * Whether the plan still holds: the head it was made from is still stored and is the head, or turns have only been
 * added after it since (checkpoint ids sort in time), so everything it deletes is older than what any turn started
 * from. A head replaced by an older-sorting id, or the planned head gone, is a conflict: plan again.
 */
export function stillValid(plan: PrunePlan, current: string | undefined, plannedExists: boolean): boolean {
  return plannedExists && current !== undefined && current >= plan.headCheckpointId;
}
