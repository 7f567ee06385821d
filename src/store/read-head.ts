/**
 * Reading a thread's head and deciding whether it may be compacted.
 */
import { BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver, CheckpointTuple } from "@langchain/langgraph-checkpoint";
import { asStoreReadError, CompactionError, describeValue } from "../errors.js";

export interface ThreadHead {
  tuple: CheckpointTuple;
  messages: BaseMessage[];
  /** Why the thread may not be compacted now, or undefined when it is idle. */
  busyReason: string | undefined;
  /**
   * What keeps it busy: a run in progress (clears by itself), a pause at `interrupt()` (until resumed), or a delta
   * channel this reader cannot rebuild.
   */
  busyKind?: "run" | "interrupt" | "unreadable";
}

/** The subset of a compiled graph used to read state: it rebuilds delta channels. */
export interface StateReader {
  getState(config: { configurable: Record<string, unknown> }): Promise<{ values: unknown }>;
}

/**
 * Nodes a checkpoint would still run, computed the way LangGraph triggers them: a `branch:to:<node>` channel that
 * holds a value (trigger channels are emptied once consumed) at a version the node has not seen. Lets a store be
 * inspected without the graph.
 */
export function pendingNodes(tuple: CheckpointTuple): string[] {
  const { channel_versions: versions, versions_seen: seen } = tuple.checkpoint;
  const nodes: string[] = [];
  for (const [channel, version] of Object.entries(versions)) {
    if (!channel.startsWith("branch:to:")) continue;
    if (!(channel in tuple.checkpoint.channel_values)) continue;
    const node = channel.slice("branch:to:".length);
    const seenVersion = seen?.[node]?.[channel];
    if (seenVersion === undefined || String(seenVersion).localeCompare(String(version), undefined, { numeric: true }) < 0) {
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
  return pending.length > 0 ? `the thread has pending nodes (${pending.join(", ")}): a run is in progress or was cut short` : undefined;
}

export async function readThreadHead(saver: BaseCheckpointSaver, threadId: string, graph?: StateReader): Promise<ThreadHead | undefined> {
  let tuple: CheckpointTuple | undefined;
  try {
    tuple = await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } });
  } catch (error) {
    throw asStoreReadError(error, threadId);
  }
  if (!tuple) return undefined;
  let raw: unknown = (tuple.checkpoint.channel_values as Record<string, unknown>).messages;
  let busyReason = busyReasonOf(tuple);
  let busyKind: ThreadHead["busyKind"] = busyReason === undefined ? undefined : (tuple.pendingWrites ?? []).some(([, channel]) => channel === "__interrupt__") ? "interrupt" : "run";
  // One read is enough unless `messages` is a delta channel, which only the graph can rebuild.
  if (raw === undefined && "messages" in tuple.checkpoint.channel_versions) {
    if (graph) {
      const state = await graph.getState({ configurable: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: tuple.checkpoint.id } });
      raw = (state.values as Record<string, unknown> | undefined)?.messages;
    } else {
      if (busyReason === undefined) {
        busyReason = "the messages channel is stored as deltas (DeltaChannel); pass the graph to read it";
        busyKind = "unreadable";
      }
    }
  }
  if (raw === undefined) raw = [];
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
      message: `thread ${threadId}: messages[${badIndex}] is not a LangChain message but ${describeValue(raw[badIndex])} (a plain object was written to the checkpoint?)`,
    });
  }
  return { tuple, messages: raw as BaseMessage[], busyReason, ...(busyKind ? { busyKind } : {}) };
}
