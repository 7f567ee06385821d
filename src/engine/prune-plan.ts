/**
 * The one prune planner: which checkpoints of a thread a prune deletes, and what the transcript must hold first.
 *
 * Kept: the head, the newest `keep` checkpoints of the root namespace, any checkpoint with an interrupt waiting, any
 * holding a message without an id, and every ancestor a kept checkpoint's messages are rebuilt from (a DeltaChannel's
 * chain back to its snapshot). Every message held by a checkpoint that goes is in a kept one as it was, or in the
 * transcript with its stored message — or it is written there (`backfill`), in the transaction that deletes: nothing
 * is lost, whoever removed it from the head. A write of this library that a run superseded (`branch`) is planned the
 * same way, its parent the one checkpoint kept, deleted only while nothing descends from it.
 *
 * Where the store's tables prove it (every checkpoint that goes holds a messages list that is, byte for byte, the
 * start of the oldest kept one's: whatever the steps between wrote, a change to an earlier message breaks the prefix),
 * the plan is made from the tables without reading a checkpoint, and nothing needs a backfill. Whatever the tables
 * cannot tell — another serializer, a delta channel, an interrupt waiting, a sub-agent's namespace that would go —
 * sends the planner to the checkpoints.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { INTERRUPT } from "@langchain/langgraph-checkpoint";
import { asStoreReadError, threadNotFound } from "../errors.js";
import { editOf } from "../messages/markers.js";
import { storedForm } from "../messages/stored-form.js";
import { getSummaryProvenance } from "../messages/summary-message.js";
import { turnOver } from "../slices.js";
import { holdsOwnMessages } from "../store/checkpoint-messages.js";
import type { PrunePlan, PruneTables } from "../store/prune-plan.js";
import { followedIn, recallEntry } from "../store/recall-index/entries.js";
import type { RecallEntry } from "../store/recall-index/types.js";
import type { StoredCheckpoint, ThreadStore } from "../store/thread-store.js";

/** All but the newest `keep` root checkpoints, or the one write `branch` a run superseded while the head was `headId`. */
export type PruneRequest = { keep: number } | { branch: string; headId: string };

/**
 * The plan of `request` on the thread: undefined for a `branch` whose checkpoint or parent is gone.
 * @throws CompactionError THREAD_NOT_FOUND for a `keep` on a thread with no checkpoint; STORE_* when the store fails.
 */
export async function planPrune(
  store: ThreadStore,
  threadId: string,
  request: PruneRequest,
): Promise<PrunePlan | undefined> {
  if ("branch" in request) {
    const written = await store.readCheckpoint(threadId, request.branch);
    const parentId = written?.tuple.parentConfig?.configurable?.checkpoint_id as string | undefined;
    const parent = parentId === undefined ? undefined : await store.readCheckpoint(threadId, parentId);
    if (!written || !parent) return undefined;
    const plan = await withBackfill(store, threadId, [parent, written], [parentId!], [request.branch]);
    return { ...plan, headCheckpointId: request.headId, leavesOnly: true };
  }
  const tables = await store.pruneTables();
  if (tables) {
    try {
      const proven = await planFromTables(tables, threadId, request.keep);
      if (proven) return proven;
    } catch (error) {
      throw asStoreReadError(error, threadId);
    }
  }
  const checkpoints = (await store.listCheckpoints(threadId)).reverse();
  if (checkpoints.length === 0) throw threadNotFound(threadId);
  const ids = checkpoints.map(({ tuple }) => tuple.checkpoint.id);
  const kept = keptIds(checkpoints, request.keep);
  const plan = await withBackfill(
    store,
    threadId,
    checkpoints,
    ids.filter((id) => kept.has(id)),
    ids.filter((id) => !kept.has(id)),
  );
  return withSubgraphs(store, threadId, checkpoints, plan);
}

/** The root checkpoints a prune keeping the newest `keep` must keep (see the file's comment). */
function keptIds(checkpoints: readonly StoredCheckpoint[], keep: number): Set<string> {
  const byId = new Map(checkpoints.map((stored) => [stored.tuple.checkpoint.id, stored]));
  const kept = new Set(checkpoints.slice(-keep).map(({ tuple }) => tuple.checkpoint.id));
  for (const { tuple, messages } of checkpoints) {
    if ((tuple.pendingWrites ?? []).some(([, channel]) => channel === INTERRUPT)) kept.add(tuple.checkpoint.id);
    // A message without an id cannot be put in the transcript: the checkpoint holding one stays.
    if (messages.some((message) => !message.id && !getSummaryProvenance(message))) kept.add(tuple.checkpoint.id);
  }
  // A kept delta checkpoint needs its ancestors back to the one holding its messages.
  for (const id of [...kept]) {
    let cursor = byId.get(id);
    while (cursor && !holdsOwnMessages(cursor.tuple)) {
      const parent = cursor.tuple.parentConfig?.configurable?.checkpoint_id as string | undefined;
      cursor = parent ? byId.get(parent) : undefined;
      if (cursor) kept.add(cursor.tuple.checkpoint.id);
    }
  }
  return kept;
}

/** The plan keeping `kept` and deleting `remove` (ids of `checkpoints`, oldest first), with its backfill. */
async function withBackfill(
  store: ThreadStore,
  threadId: string,
  checkpoints: readonly StoredCheckpoint[],
  kept: string[],
  remove: string[],
): Promise<PrunePlan> {
  const byId = new Map(checkpoints.map((stored) => [stored.tuple.checkpoint.id, stored]));
  const ids = new Set<string>();
  for (const { messages } of checkpoints) for (const message of messages) if (message.id) ids.add(message.id);
  const recorded = await store.recall.recorded(threadId, [...ids]);
  return {
    headCheckpointId: checkpoints.at(-1)!.tuple.checkpoint.id,
    kept,
    remove,
    ...(remove.length > 0 ? { namespacesBefore: remove.at(-1)! } : {}),
    backfill: backfillFor(byId, kept, remove, recorded),
  };
}

/**
 * Transcript entries for every version of a message that the checkpoints in `remove` hold and that is not safe.
 * `recorded`: which messages the transcript already holds, with the stored forms of the versions it holds.
 */
function backfillFor(
  byId: ReadonlyMap<string, StoredCheckpoint>,
  kept: readonly string[],
  remove: readonly string[],
  recorded: ReadonlyMap<string, ReadonlySet<string>>,
): RecallEntry[] {
  // Each version of a message (its id and stored form: an edit that keeps the id makes two, whether or not its text
  // changed) is safe where a kept checkpoint holds it or the transcript records it.
  const safe = new Map<string, Set<string>>([...recorded].map(([id, forms]) => [id, new Set(forms)]));
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

/** The plan the tables prove needs no backfill (see the file's comment), or undefined where the checkpoints must be read. */
async function planFromTables(tables: PruneTables, threadId: string, keep: number): Promise<PrunePlan | undefined> {
  const ids = await tables.rootCheckpoints(threadId);
  if (!ids || ids.length === 0) return undefined;
  // Nothing to delete: said without reading a checkpoint.
  if (ids.length <= keep) return { headCheckpointId: ids.at(-1)!, kept: ids, remove: [], backfill: [] };
  const remove = ids.slice(0, -keep);
  const kept = ids.slice(-keep);
  if (await tables.interruptWaiting(threadId, remove)) return undefined;
  if ((await tables.namespacesBefore(threadId, remove.at(-1)!)).length > 0) return undefined;
  for (const id of remove) {
    // One checkpoint per stretch: the store's work holds the event loop, a whole turn of it between two (slices.ts).
    await turnOver();
    if ((await tables.isPrefixOf(threadId, id, kept[0]!)) !== true) return undefined;
  }
  return { headCheckpointId: kept.at(-1)!, kept, remove, namespacesBefore: remove.at(-1)!, backfill: [] };
}

/**
 * `plan` with the subgraph namespaces it would delete whole but must keep: those holding a message neither a kept
 * root checkpoint, nor the transcript (already, or by this prune's backfill) holds — a sub-agent's tool calls and
 * results under createSupervisor, which never reach the root conversation. Every message of every namespace stays
 * in a kept checkpoint or in the transcript.
 */
async function withSubgraphs(
  store: ThreadStore,
  threadId: string,
  checkpoints: readonly StoredCheckpoint[],
  plan: PrunePlan,
): Promise<PrunePlan> {
  if (!plan.namespacesBefore) return plan;
  const subgraphs = await store.subgraphMessageIds(threadId, plan.namespacesBefore);
  if (subgraphs.size === 0) return plan;
  const kept = new Set(plan.kept);
  const held = new Set(plan.backfill.map((entry) => entry.messageId));
  for (const stored of checkpoints)
    if (kept.has(stored.tuple.checkpoint.id))
      for (const message of stored.messages) if (message.id) held.add(message.id);
  const recorded = await store.recall.recorded(
    threadId,
    [...subgraphs.values()].flatMap((ids) => ids ?? []),
  );
  const keepNamespaces = [...subgraphs]
    .filter(([, ids]) => ids === undefined || ids.some((id) => !held.has(id) && !recorded.has(id)))
    .map(([namespace]) => namespace);
  return keepNamespaces.length === 0 ? plan : { ...plan, keepNamespaces };
}
