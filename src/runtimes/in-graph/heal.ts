/**
 * The in-graph step's view of a state holding messages beside the summary that covers them (messages/covered.ts):
 * copies after their summary (a run's stale input) are dropped before the model call; copies before it mean the
 * graph's parent merges messages by id, which compaction cannot shrink: said once per thread.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { CompactionError } from "../../errors.js";
import type { Notices } from "../../engine/notices.js";
import { coveredCopies } from "../../messages/covered.js";

const PARENT_MERGES =
  "the state holds messages beside the compaction summary that covers them: this step runs in a subgraph whose parent merges its messages by id (createSupervisor's supervisor, a createAgent used as a sub-agent), so what a compaction removes stays in the parent's head and the head never shrinks; pass stateSchema: CompactionAgentState (from langgraph-compaction) to the parent graph (createSupervisor)";

/** Threads remembered as told, at most (the oldest forgotten first). */
const TOLD_KEPT = 10_000;

export class CoveredCopiesHealer {
  /** Threads told their parent graph merges messages by id, each once. */
  private readonly told = new Set<string>();

  constructor(
    private readonly notices: Notices,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** `messages` without the copies after their summary, or undefined when there are none. */
  healed(messages: readonly BaseMessage[], threadKey: string): BaseMessage[] | undefined {
    const copies = coveredCopies(messages);
    if (copies.before) {
      if (!this.told.has(threadKey)) {
        this.told.add(threadKey);
        if (this.told.size > TOLD_KEPT) this.told.delete(this.told.values().next().value!);
        this.onError(new CompactionError({ code: "INVALID_ARGUMENT", parameter: "stateSchema", message: PARENT_MERGES }));
      }
      this.notices.once({ code: "CANNOT_COMPACT", threadId: threadKey, message: PARENT_MERGES });
    }
    if (copies.after.length === 0) return undefined;
    const drop = new Set(copies.after);
    return messages.filter((_, index) => !drop.has(index));
  }
}
