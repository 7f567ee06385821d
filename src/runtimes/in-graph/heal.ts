/**
 * The in-graph step's view of a state holding messages beside the summary that covers them (messages/covered.ts):
 * copies after their summary (a run's stale input) are dropped before the model call — only those the transcript
 * holds as they are: a new message that reuses a compacted message's id is new content, and stays; copies before it
 * mean the graph's parent merges messages by id, which compaction cannot shrink: said at every call whose state shows
 * it, and a compaction applied at such a call is not reported as one (`parentMerges`). The node says it sooner, once
 * per thread at its first call, when it runs in a subgraph whose messages did not come through
 * `CompactionAgentState`'s reducer (messages-reducer.ts): the parent may merge them by id.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { CompactionError } from "../../errors.js";
import type { Notices } from "../../engine/notices.js";
import { coveredCopies } from "../../messages/covered.js";
import { storedForm } from "../../messages/stored-form.js";
import { reducedByCompactionState } from "./messages-reducer.js";

const PARENT_MERGES =
  "the state holds messages beside the compaction summary that covers them: this step runs in a subgraph whose parent merges its messages by id (createSupervisor's supervisor, a createAgent used as a sub-agent), so what a compaction removes stays in the parent's head and the head never shrinks; pass stateSchema: CompactionAgentState (from langgraph-compaction) to the parent graph (createSupervisor)";

const SUBGRAPH_WITHOUT_SCHEMA = (namespace: string): string =>
  `this step runs in a subgraph (checkpoint namespace ${JSON.stringify(namespace.split("|")[0])}) whose state is not CompactionAgentState: a parent that merges the subgraph's messages by id (createSupervisor's supervisor, a compiled graph added as a node with a messages channel) keeps what a compaction removes, and the head never shrinks; pass stateSchema: CompactionAgentState (from langgraph-compaction) to the graph this step runs in (createSupervisor, createReactAgent) — it is LangGraph's messages reducer otherwise, so it is safe where the parent does not merge`;

/** Threads remembered, at most (the oldest forgotten first). */
const TOLD_KEPT = 10_000;

export class CoveredCopiesHealer {
  /** Threads told, at their first call, that they run in a subgraph without the schema. */
  private readonly told = new Set<string>();
  /** Threads whose latest call's state held messages before the summary covering them: the parent merges. */
  private readonly merging = new Set<string>();

  constructor(
    private readonly notices: Notices,
    private readonly onError: (error: unknown) => void,
  ) {}

  /**
   * Says, once per thread, that the node at `namespace` (its config's `checkpoint_ns`) runs in a subgraph whose
   * `messages` did not come through `CompactionAgentState`'s reducer.
   */
  checkSubgraph(messages: readonly BaseMessage[], namespace: unknown, threadKey: string): void {
    if (typeof namespace === "string" && namespace.includes("|") && !reducedByCompactionState(messages))
      this.tell(threadKey, SUBGRAPH_WITHOUT_SCHEMA(namespace));
  }

  /**
   * `messages` without the copies after their summary that `recorded` (the stored forms the transcript holds of each
   * id asked) holds as they are, or undefined when there are none.
   */
  async healed(
    messages: readonly BaseMessage[],
    threadKey: string,
    recorded: (ids: string[]) => Promise<ReadonlyMap<string, ReadonlySet<string>>>,
  ): Promise<BaseMessage[] | undefined> {
    const copies = coveredCopies(messages);
    this.merging.delete(threadKey);
    if (copies.before) {
      this.merging.add(threadKey);
      if (this.merging.size > TOLD_KEPT) this.merging.delete(this.merging.values().next().value!);
      this.say(threadKey, PARENT_MERGES);
    }
    if (copies.after.length === 0) return undefined;
    const held = await recorded(copies.after.map((index) => messages[index]!.id!));
    const drop = new Set(
      copies.after.filter((index) => held.get(messages[index]!.id!)?.has(storedForm(messages[index]!)) === true),
    );
    return drop.size === 0 ? undefined : messages.filter((_, index) => !drop.has(index));
  }

  /**
   * Whether the state of the thread's latest call held messages beside the summary covering them: a compaction applied
   * at that call shrinks the model's input but not the head, whose parent keeps what it removes.
   */
  parentMerges(threadKey: string): boolean {
    return this.merging.has(threadKey);
  }

  /** Tells `message` once per thread. */
  private tell(threadKey: string, message: string): void {
    if (this.told.has(threadKey)) return;
    this.told.add(threadKey);
    if (this.told.size > TOLD_KEPT) this.told.delete(this.told.values().next().value!);
    this.say(threadKey, message);
  }

  /** Says `message`: to `onCompactionError` and as a `CANNOT_COMPACT` notice (a process warning). */
  private say(threadKey: string, message: string): void {
    this.onError(new CompactionError({ code: "INVALID_ARGUMENT", parameter: "stateSchema", message }));
    this.notices.say({ code: "CANNOT_COMPACT", threadId: threadKey, message });
  }
}
