/**
 * Which checkpoints of a thread a prune deletes, and what the transcript must hold first. Kept: the head, the newest
 * `keep` checkpoints of the root namespace, any checkpoint with an interrupt waiting, and every ancestor a kept
 * checkpoint's messages are rebuilt from (a DeltaChannel's chain back to its snapshot). Every message held by a
 * checkpoint that goes is in a kept one as it was, or in the transcript with its stored message — or it is written
 * there (`backfill`), in the transaction that deletes: nothing is lost, whoever removed it from the head.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { INTERRUPT } from "@langchain/langgraph-checkpoint";
import { editOf } from "../messages/markers.js";
import { getSummaryProvenance } from "../messages/summary-message.js";
import { holdsOwnMessages } from "./checkpoint-messages.js";
import { storedForm } from "../messages/stored-form.js";
import { followedIn, recallEntry } from "./recall-index/entries.js";
import type { RecallEntry } from "./recall-index/types.js";
import type { StoredCheckpoint } from "./checkpoint-messages.js";

export interface PrunePlan {
  headCheckpointId: string;
  /** Root-namespace checkpoints kept, oldest first. */
  kept: string[];
  /** Root-namespace checkpoints deleted (with their writes). */
  remove: string[];
  /** Subgraph checkpoints older than this id (whole namespaces) go with them; undefined when none is removed. */
  namespacesBefore?: string;
  /**
   * Of those namespaces, the ones kept whole: they hold a message neither a kept checkpoint nor the transcript holds
   * (a sub-agent's tool calls, which never reach the root conversation).
   */
  keepNamespaces?: string[];
  /** Transcript entries written before anything is deleted. */
  backfill: RecallEntry[];
  /** Delete only checkpoints that no checkpoint names as its parent; a plan that would delete a parent conflicts. */
  leavesOnly?: boolean;
}

/**
 * The message ids whose transcript entries a plan over `checkpoints` may need to know about: those of every
 * checkpoint read (the store answers for these ids only, never the whole transcript).
 */
export function messageIdsOf(checkpoints: readonly StoredCheckpoint[]): string[] {
  const ids = new Set<string>();
  for (const { messages } of checkpoints) for (const message of messages) if (message.id) ids.add(message.id);
  return [...ids];
}

/**
 * `checkpoints`: the thread's root namespace, oldest first. `recorded`: which of their messages the transcript
 * already holds with the message itself, with the stored forms of the versions it holds (`messageIdsOf` names the ids to ask
 * the store about). Every version of a message a deleted checkpoint holds is backfilled unless it is safe.
 */
export function planPrune(
  checkpoints: readonly StoredCheckpoint[],
  keep: number,
  recorded: ReadonlyMap<string, ReadonlySet<string>>,
): PrunePlan {
  const ids = checkpoints.map(({ tuple }) => tuple.checkpoint.id);
  const byId = new Map(checkpoints.map((stored) => [stored.tuple.checkpoint.id, stored]));
  const kept = new Set(ids.slice(-keep));
  for (const { tuple } of checkpoints) {
    if ((tuple.pendingWrites ?? []).some(([, channel]) => channel === INTERRUPT)) kept.add(tuple.checkpoint.id);
  }
  // A message without an id cannot be put in the transcript: the checkpoints holding one stay.
  for (const { tuple, messages } of checkpoints)
    if (messages.some((message) => !message.id && !getSummaryProvenance(message))) kept.add(tuple.checkpoint.id);
  // A kept delta checkpoint needs its ancestors back to the one holding its messages.
  for (const id of [...kept]) {
    let cursor = byId.get(id);
    while (cursor && !holdsOwnMessages(cursor.tuple)) {
      const parent = cursor.tuple.parentConfig?.configurable?.checkpoint_id as string | undefined;
      cursor = parent ? byId.get(parent) : undefined;
      if (cursor) kept.add(cursor.tuple.checkpoint.id);
    }
  }
  const remove = ids.filter((id) => !kept.has(id));
  const backfill = backfillFor(byId, [...kept], remove, recorded);
  return {
    headCheckpointId: ids.at(-1)!,
    kept: ids.filter((id) => kept.has(id)),
    remove,
    ...(remove.length > 0 ? { namespacesBefore: remove.at(-1)! } : {}),
    backfill,
  };
}

/**
 * The plan that deletes the library's own write `removed`, a checkpoint nothing descends from (a write a turn
 * superseded), keeping `parent`: every version of a message it holds that neither its parent nor the transcript holds
 * is backfilled. Deleted only while it is a leaf (`leavesOnly`): a run that started from it since keeps it.
 */
export function planBranchRemoval(
  parent: StoredCheckpoint,
  removed: StoredCheckpoint,
  headCheckpointId: string,
  recorded: ReadonlyMap<string, ReadonlySet<string>>,
): PrunePlan {
  const byId = new Map([parent, removed].map((stored) => [stored.tuple.checkpoint.id, stored]));
  const remove = [removed.tuple.checkpoint.id];
  return {
    headCheckpointId,
    kept: [parent.tuple.checkpoint.id],
    remove,
    backfill: backfillFor(byId, [parent.tuple.checkpoint.id], remove, recorded),
    leavesOnly: true,
  };
}

/** Transcript entries for every version of a message that the checkpoints in `remove` hold and that is not safe. */
function backfillFor(
  byId: ReadonlyMap<string, StoredCheckpoint>,
  kept: readonly string[],
  remove: readonly string[],
  recorded: ReadonlyMap<string, ReadonlySet<string>>,
): RecallEntry[] {
  // Each version of a message (its id and stored form: an edit that keeps the id makes two, whether or not its text
  // changed) is safe where a kept checkpoint holds it or the transcript records it.
  const safe = new Map<string, Set<string>>([...recorded].map(([id, texts]) => [id, new Set(texts)]));
  for (const id of kept) {
    for (const message of byId.get(id)!.messages)
      if (message.id)
        (safe.get(message.id) ?? safe.set(message.id, new Set()).get(message.id)!).add(storedForm(message));
  }
  // The last place each other version was seen among the checkpoints that go.
  const last = new Map<
    string,
    { message: BaseMessage; checkpointId: string; ordinal: number; previous?: BaseMessage; previousId?: string }
  >();
  for (const id of remove) {
    const { messages } = byId.get(id)!;
    messages.forEach((message, ordinal) => {
      if (!message.id || getSummaryProvenance(message)) return;
      // A copy this library edited (cleared, clipped, archived) is derived: its original is what the transcript keeps.
      if (editOf(message) && recorded.has(message.id)) return;
      const form = storedForm(message);
      if (safe.get(message.id)?.has(form)) return;
      last.set(`${message.id}\u0000${form}`, {
        message,
        checkpointId: id,
        ordinal,
        ...(ordinal > 0 ? { previous: messages[ordinal - 1], previousId: followedIn(messages, ordinal) } : {}),
      });
    });
  }
  return [...last.values()].map(({ message, checkpointId, ordinal, previous, previousId }) =>
    recallEntry(message, checkpointId, ordinal, previous, undefined, previousId),
  );
}
