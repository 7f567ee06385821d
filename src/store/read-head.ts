/**
 * Reading a thread's head and deciding whether it may be compacted.
 */
import { BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver, CheckpointTuple } from "@langchain/langgraph-checkpoint";
import { asStoreReadError, CompactionError, describeValue } from "../errors.js";
import { messagesAt, messagesStorage, type MessagesStorage } from "./checkpoint-messages.js";

export interface ThreadHead {
  tuple: CheckpointTuple;
  messages: BaseMessage[];
  /** Why the thread may not be compacted now, or undefined when it is idle. */
  busyReason: string | undefined;
  /** What keeps it busy: a run in progress (clears by itself) or a pause at `interrupt()` (until resumed). */
  busyKind?: "run" | "interrupt";
  /** How the head stores its messages: a list, or deltas on its ancestors (`MessagesDeltaValue`). */
  storage: MessagesStorage;
}

/**
 * Nodes a checkpoint would still run, computed the way LangGraph triggers them: a trigger channel that holds a value
 * (trigger channels are emptied once consumed) at a version the node has not seen. The triggers are `branch:to:<node>`
 * and `__start__`, which holds a run's input in the checkpoint the run writes first (source "input"), before its first
 * step. Lets a store be inspected without the graph.
 */
export function pendingNodes(tuple: CheckpointTuple): string[] {
  const { channel_versions: versions, versions_seen: seen } = tuple.checkpoint;
  const nodes: string[] = [];
  for (const [channel, version] of Object.entries(versions)) {
    const node =
      channel === "__start__"
        ? channel
        : channel.startsWith("branch:to:")
          ? channel.slice("branch:to:".length)
          : undefined;
    if (node === undefined || !(channel in tuple.checkpoint.channel_values)) continue;
    const seenVersion = seen?.[node]?.[channel];
    if (
      seenVersion === undefined ||
      String(seenVersion).localeCompare(String(version), undefined, { numeric: true }) < 0
    ) {
      nodes.push(node);
    }
  }
  return nodes;
}

/** Why a head may not be rewritten now: pending writes (a run in progress, an interrupt) or nodes still to run. */
function busyReasonOf(tuple: CheckpointTuple): string | undefined {
  const writes = tuple.pendingWrites ?? [];
  if (writes.length > 0) {
    return writes.some(([, channel]) => channel === "__interrupt__")
      ? "the thread is paused at an interrupt(); resume it first"
      : `the head has ${writes.length} pending write(s): a run is in progress`;
  }
  const pending = pendingNodes(tuple);
  return pending.length > 0
    ? `the thread has pending nodes (${pending.join(", ")}): a run is in progress or was cut short`
    : undefined;
}

/**
 * The head of the thread's root namespace and its messages, whichever way the `messages` channel is stored (a
 * `DeltaChannel` is rebuilt from its snapshot and writes: checkpoint-messages.ts), with why it may not be compacted
 * now. Undefined when the thread has no checkpoint. `checkpointId`: that checkpoint instead of the head (a snapshot
 * the head has moved on from; undefined when the thread has no such checkpoint). `readTuple`: the backend's faster
 * read of the same tuple (store/backend.ts), in place of the saver's `getTuple`.
 * @throws CompactionError INVALID_HISTORY when `messages` holds something else than LangChain messages;
 *   STORE_CORRUPT when a checkpoint cannot be decoded.
 */
export async function readThreadHead(
  saver: BaseCheckpointSaver,
  threadId: string,
  checkpointId?: string,
  readTuple?: (threadId: string, checkpointId?: string) => Promise<CheckpointTuple | undefined>,
): Promise<ThreadHead | undefined> {
  let tuple: CheckpointTuple | undefined;
  let raw: unknown;
  try {
    tuple = readTuple
      ? await readTuple(threadId, checkpointId)
      : await saver.getTuple({
          configurable: {
            thread_id: threadId,
            checkpoint_ns: "",
            ...(checkpointId === undefined ? {} : { checkpoint_id: checkpointId }),
          },
        });
    if (!tuple) return undefined;
    raw = await messagesAt(saver, tuple);
  } catch (error) {
    throw asStoreReadError(error, threadId);
  }
  const busyReason = busyReasonOf(tuple);
  const busyKind: ThreadHead["busyKind"] =
    busyReason === undefined
      ? undefined
      : (tuple.pendingWrites ?? []).some(([, channel]) => channel === "__interrupt__")
        ? "interrupt"
        : "run";
  return {
    tuple,
    messages: requireMessages(raw, threadId),
    busyReason,
    storage: messagesStorage(tuple),
    ...(busyKind ? { busyKind } : {}),
  };
}

/** `raw` as the messages it must be. @throws CompactionError INVALID_HISTORY naming the first bad value. */
export function requireMessages(raw: unknown, threadId: string): BaseMessage[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    throw new CompactionError({
      code: "INVALID_HISTORY",
      value: raw,
      message: `thread ${threadId}: the "messages" channel does not hold an array; is this a messages graph?`,
    });
  }
  const badIndex = raw.findIndex((message) => !BaseMessage.isInstance(message));
  if (badIndex >= 0) {
    throw new CompactionError({
      code: "INVALID_HISTORY",
      value: raw[badIndex],
      message: `thread ${threadId}: messages[${badIndex}] ${whyNotAMessage(raw[badIndex])}`,
    });
  }
  return raw as BaseMessage[];
}

/** Why LangChain would not take `value` for a message: a message class with odd content, or no message at all. */
function whyNotAMessage(value: unknown): string {
  const content = (value as { content?: unknown } | null | undefined)?.content;
  const named =
    typeof value === "object" &&
    value !== null &&
    "content" in value &&
    typeof (value as { getType?: unknown }).getType === "function";
  if (named) {
    const id = (value as { id?: unknown }).id;
    const fix =
      typeof id === "string"
        ? `; remove it (updateState with new RemoveMessage({ id: ${JSON.stringify(id)} })) or write its content as text, and the thread compacts again`
        : "";
    return `is ${describeValue(value)}${typeof id === "string" ? ` (id ${JSON.stringify(id)})` : ""} whose content is ${describeValue(content)}, neither a string nor an array of content blocks (LangChain does not take it for a message)${fix}`;
  }
  return `is not a LangChain message but ${describeValue(value)} (a plain object was written to the checkpoint?)`;
}
