/**
 * How the wrapper reads a graph's stream without changing what the caller sees.
 *
 * After a streamed turn the wrapper needs the thread's final messages. When the caller's stream modes carry no
 * `"values"`, the wrapper adds that mode to the call (so the turn's final state arrives in memory, and the thread is
 * not read back from the checkpointer and counted again from scratch), then removes every chunk of the added mode
 * and unwraps the others to the shape the caller asked for: LangGraph yields `payload` for one mode,
 * `[mode, payload]` for several, and `[namespace, ...]` before either with `subgraphs`.
 */

import { BaseMessage } from "@langchain/core/messages";

export interface StreamShape {
  /** The `streamMode` to pass to the graph (the caller's, or with `"values"` added). */
  readonly streamMode: unknown;
  /** Whether `"values"` was added by the wrapper (its chunks are not the caller's). */
  readonly injected: boolean;
  /** The root graph's messages in this chunk, when it is a root `"values"` chunk. */
  valuesOf(chunk: unknown): BaseMessage[] | undefined;
  /** Whether the chunk is the caller's (false for chunks of the added mode). */
  forwards(chunk: unknown): boolean;
  /** The chunk as the caller's own `streamMode` would have yielded it. */
  unwrap(chunk: unknown): unknown;
}

export function messagesOf(value: unknown): BaseMessage[] | undefined {
  const messages = (value as { messages?: unknown } | undefined)?.messages;
  return Array.isArray(messages) && messages.every((message) => BaseMessage.isInstance(message))
    ? (messages as BaseMessage[])
    : undefined;
}

/**
 * The shape of one streamed call. `requested` is the caller's `streamMode` (undefined: the graph's default,
 * `graphDefault`, yielded as single-mode chunks); `encoding` set (server-sent events) leaves the call untouched.
 */
export function streamShape(
  requested: unknown,
  graphDefault: unknown,
  subgraphs: boolean,
  encoding: unknown,
): StreamShape {
  const modes: unknown[] =
    requested === undefined
      ? Array.isArray(graphDefault)
        ? graphDefault
        : ["values"]
      : Array.isArray(requested)
        ? requested
        : [requested];
  const single = !Array.isArray(requested);
  const injected = !modes.includes("values") && encoding === undefined;
  // The graph's own tuple layout for this call: [namespace?, mode?, payload].
  const tagged = injected || !single;
  const split = (chunk: unknown): { namespace: unknown[]; mode: unknown; payload: unknown } | undefined => {
    if (!subgraphs && !tagged)
      return { namespace: [], mode: modes.length === 1 ? modes[0] : undefined, payload: chunk };
    if (!Array.isArray(chunk)) return undefined;
    if (subgraphs && tagged)
      return chunk.length === 3 && Array.isArray(chunk[0])
        ? { namespace: chunk[0], mode: chunk[1], payload: chunk[2] }
        : undefined;
    if (subgraphs)
      return chunk.length === 2 && Array.isArray(chunk[0])
        ? { namespace: chunk[0], mode: modes.length === 1 ? modes[0] : undefined, payload: chunk[1] }
        : undefined;
    return chunk.length === 2 ? { namespace: [], mode: chunk[0], payload: chunk[1] } : undefined;
  };
  return {
    streamMode: injected ? [...modes, "values"] : requested,
    injected,
    valuesOf(chunk) {
      const parts = split(chunk);
      if (!parts || parts.namespace.length > 0) return undefined;
      // A single-mode stream of the graph's default modes does not say which mode a chunk is.
      if (parts.mode !== "values" && !(parts.mode === undefined && modes.includes("values"))) return undefined;
      return messagesOf(parts.payload);
    },
    forwards(chunk) {
      if (!injected) return true;
      return split(chunk)?.mode !== "values";
    },
    unwrap(chunk) {
      if (!injected) return chunk;
      const parts = split(chunk);
      if (!parts) return chunk;
      if (single) return subgraphs ? [parts.namespace, parts.payload] : parts.payload;
      return subgraphs ? [parts.namespace, parts.mode, parts.payload] : [parts.mode, parts.payload];
    },
  };
}
