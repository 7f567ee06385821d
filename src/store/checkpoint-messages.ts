/**
 * The `messages` channel of a stored checkpoint, whichever way LangGraph stored it:
 * - a list in `channel_values` (a `MessagesAnnotation` / `MessagesValue` channel, a BinaryOperatorAggregate);
 * - a `DeltaChannel` (`MessagesDeltaValue`): most checkpoints hold no value at all, only a version; the value is the
 *   nearest ancestor's snapshot with the writes of every step since replayed through LangGraph's own reducer
 *   (`messagesDeltaReducer`), as the graph itself rebuilds it — so no graph is needed to read such a thread.
 */
import {
  DeltaSnapshot,
  isDeltaSnapshot,
  type BaseCheckpointSaver,
  type CheckpointTuple,
  type PendingWrite,
} from "@langchain/langgraph-checkpoint";
import type { BaseMessage } from "@langchain/core/messages";

/** A checkpoint of a thread's root namespace with its messages (a delta channel rebuilt). */
export interface StoredCheckpoint {
  tuple: CheckpointTuple;
  messages: BaseMessage[];
}

/** How a checkpoint holds its messages: in full (`list`), as deltas on its ancestors (`delta`), or not at all. */
export type MessagesStorage = "list" | "delta" | "none";

type CheckpointLike = Pick<CheckpointTuple, "checkpoint">;

export function messagesStorage({ checkpoint }: CheckpointLike): MessagesStorage {
  const values = checkpoint.channel_values as Record<string, unknown>;
  if (Object.prototype.hasOwnProperty.call(values, "messages"))
    return isDeltaSnapshot(values.messages) ? "delta" : "list";
  return "messages" in checkpoint.channel_versions ? "delta" : "none";
}

/** Whether the checkpoint holds its messages itself (a list or a delta snapshot), not only as deltas on its ancestors. */
export function holdsOwnMessages(tuple: CheckpointLike): boolean {
  return ownValue(tuple) !== undefined || messagesStorage(tuple) === "none";
}

/** The value stored in the checkpoint itself (a list, or a delta snapshot's list), if it holds one. */
function ownValue({ checkpoint }: CheckpointLike): { value: unknown } | undefined {
  const values = checkpoint.channel_values as Record<string, unknown>;
  if (!Object.prototype.hasOwnProperty.call(values, "messages")) return undefined;
  const value = values.messages;
  return { value: isDeltaSnapshot(value) ? (value as { value: unknown }).value : value };
}

/**
 * `seed` (a snapshot, a list, or nothing) with `writes` replayed by LangGraph's own delta channel and reducer.
 * `@langchain/langgraph` is imported here, on the first delta thread only: a process reading list threads (the
 * script, a worker) never loads the graph runtime.
 */
async function replay(
  seed: unknown,
  writes: readonly PendingWrite[] | readonly [string, string, unknown][],
): Promise<unknown> {
  const { DeltaChannel, messagesDeltaReducer } = await import("@langchain/langgraph");
  const channel = new DeltaChannel(messagesDeltaReducer).fromCheckpoint(seed as never);
  channel.replayWrites(writes as never);
  return channel.isAvailable() ? channel.get() : [];
}

/** The raw `messages` value of one checkpoint (not yet checked to be messages): `[]` when it has none. */
export async function messagesAt(saver: BaseCheckpointSaver, tuple: CheckpointTuple): Promise<unknown> {
  const own = ownValue(tuple);
  if (own) return own.value;
  if (messagesStorage(tuple) === "none") return [];
  const history = (await saver.getDeltaChannelHistory({ config: tuple.config, channels: ["messages"] })).messages;
  return await replay(history?.seed, history?.writes ?? []);
}

/**
 * The raw `messages` value of every checkpoint of `tuples` (one thread's root namespace, any order), keyed by
 * checkpoint id: a delta checkpoint is rebuilt from its parent's value and the parent's writes when the parent is
 * among them (one pass, not one walk per checkpoint), else by the saver's own history walk.
 */
export async function messagesOfCheckpoints(
  saver: BaseCheckpointSaver,
  tuples: readonly CheckpointTuple[],
): Promise<Map<string, unknown>> {
  const byId = new Map(tuples.map((tuple) => [tuple.checkpoint.id, tuple]));
  const values = new Map<string, unknown>();
  const resolve = async (tuple: CheckpointTuple): Promise<unknown> => {
    const id = tuple.checkpoint.id;
    if (values.has(id)) return values.get(id);
    // Iterative over the parent chain: the nearest ancestor with a value, then forward.
    const chain: CheckpointTuple[] = [];
    let cursor: CheckpointTuple | undefined = tuple;
    let base: unknown;
    let found = false;
    while (cursor) {
      const cursorId: string = cursor.checkpoint.id;
      if (values.has(cursorId)) {
        base = values.get(cursorId);
        found = true;
        break;
      }
      const own = ownValue(cursor);
      if (own || messagesStorage(cursor) === "none") {
        base = own ? own.value : [];
        values.set(cursorId, base);
        found = true;
        break;
      }
      chain.push(cursor);
      const parentId = cursor.parentConfig?.configurable?.checkpoint_id as string | undefined;
      cursor = parentId ? byId.get(parentId) : undefined;
    }
    if (!found) {
      // The chain leaves the listed checkpoints: the saver walks it for the oldest one.
      const oldest = chain.pop()!;
      base = await messagesAt(saver, oldest);
      values.set(oldest.checkpoint.id, base);
    }
    // chain: newest first; each is its parent's value with the parent's writes replayed (the parent is listed:
    // it is the next one in the chain, or where the walk stopped).
    let value = base;
    for (let index = chain.length - 1; index >= 0; index--) {
      const child = chain[index]!;
      const parent = byId.get(child.parentConfig?.configurable?.checkpoint_id as string);
      value = await replay(
        value,
        (parent?.pendingWrites ?? []).filter(([, channel]) => channel === "messages"),
      );
      values.set(child.checkpoint.id, value);
    }
    return values.get(id);
  };
  for (const tuple of tuples) await resolve(tuple);
  return values;
}

/**
 * What a replacement of `head` stores as its `messages` value: the list itself, or for a delta channel a snapshot
 * (the checkpoint then seeds every later rebuild, as LangGraph's own snapshots do), with the metadata LangGraph
 * keeps beside delta channels carried over (the snapshot resets the channel's counters).
 */
export function replacementValue(
  head: CheckpointTuple,
  messages: readonly unknown[],
): { value: unknown; metadata: Record<string, unknown> } {
  if (messagesStorage(head) !== "delta") return { value: [...messages], metadata: {} };
  const metadata: Record<string, unknown> = {};
  const headMetadata = (head.metadata ?? {}) as Record<string, unknown>;
  if (headMetadata.delta_writes_versioned === true) metadata.delta_writes_versioned = true;
  const counters = { ...((headMetadata.counters_since_delta_snapshot as Record<string, unknown> | undefined) ?? {}) };
  delete counters.messages;
  if (Object.keys(counters).length > 0) metadata.counters_since_delta_snapshot = counters;
  return { value: new DeltaSnapshot([...messages]), metadata };
}
