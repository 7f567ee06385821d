/**
 * The person's view of a thread, in a browser: given an Agent Server client (`@langchain/langgraph-sdk`'s `Client`)
 * and a thread id, the whole conversation in order — the messages compaction took out of the state, from the
 * transcript the middleware or the node keeps in the server's store, put back where they were, then the state's own
 * — each with where it comes from, a page at a time, as `readTranscript` gives it on the server
 * (recall/conversation-order.ts: one order for both). The model's view, the compact state, is unchanged.
 *
 * Plain data and two SDK calls (`threads.getState`, `store.searchItems`): no Node built-ins, nothing of LangChain.
 */
import { provenanceOf } from "../messages/provenance.js";
import { orderConversation } from "../recall/conversation-order.js";
import { entryOfItem, transcriptNamespace } from "../store/recall-index/transcript-items.js";
import type { RecallEntry, RecallVersion } from "../store/recall-index/types.js";

/** A message as the SDK gives it (the JSON of a LangChain message): `type`, `content`, `id` and the rest. */
export interface PlainMessage {
  type: string;
  content: unknown;
  id?: string;
  name?: string;
  tool_calls?: unknown[];
  tool_call_id?: string;
  additional_kwargs?: Record<string, unknown>;
  [field: string]: unknown;
}

/** What of the SDK's `Client` this reads (the real one fits). */
export interface ConversationClient {
  threads: { getState(threadId: string): Promise<{ values: unknown }> };
  store: {
    searchItems(
      namespacePrefix: string[],
      options?: { limit?: number; offset?: number },
    ): Promise<{ items: Array<{ key: string; value: Record<string, unknown> }> }>;
  };
}

export interface ConversationMessage {
  /** Its place in the whole conversation, from 0 (pass the last one's as `after` for the next page). */
  position: number;
  message: PlainMessage;
  /** "transcript": compaction took it out of the state; "head": in the state; "summary": a summary in the state. */
  source: "transcript" | "head" | "summary";
  /**
   * The message was edited: the state holds it cleared, clipped or archived (this is the original), or the
   * application wrote over it under its id (this is the state's version; `versions` holds the earlier ones).
   */
  edited?: true;
  /** The message's other versions the transcript holds (an edit that kept its id), oldest first. */
  versions?: PlainMessage[];
  /** Only its indexed text could be recovered (an entry without its stored message). */
  partial?: true;
  /**
   * For a message from the transcript, the compaction that took it out (the checkpoint it left); a UI marks where
   * this changes, and before the state's messages, as "earlier messages summarized".
   */
  compaction?: string;
}

export interface ConversationPage {
  messages: ConversationMessage[];
  /** Messages in the whole conversation. */
  total: number;
  /** `after` for the next page, when there is one. */
  next?: number;
}

export interface ReadConversationOptions {
  /** Start after this position (a previous page's `next`). @default the beginning */
  after?: number;
  /** Messages per page. @default 200 */
  limit?: number;
}

/** A thread whose conversation cannot be read as asked (`code` says why). */
export class ConversationError extends Error {
  override readonly name = "ConversationError";
  constructor(
    readonly code: "INVALID_ARGUMENT" | "NO_MESSAGES" | "NO_TRANSCRIPT",
    message: string,
  ) {
    super(message);
  }
}

const ITEMS_PER_REQUEST = 1_000;

/** A page of the thread's whole conversation, in order. Reads only. @throws ConversationError */
export async function readConversation(
  client: ConversationClient,
  threadId: string,
  { after, limit = 200 }: ReadConversationOptions = {},
): Promise<ConversationPage> {
  if (after !== undefined && (!Number.isInteger(after) || after < -1))
    throw new ConversationError(
      "INVALID_ARGUMENT",
      `after: expected a position (an integer >= -1) from a previous page, got ${JSON.stringify(after)}`,
    );
  if (!Number.isInteger(limit) || limit < 1)
    throw new ConversationError("INVALID_ARGUMENT", `limit: expected an integer >= 1, got ${JSON.stringify(limit)}`);
  const state = await client.threads.getState(threadId);
  const messages = (state.values as { messages?: unknown } | null | undefined)?.messages;
  if (!Array.isArray(messages))
    throw new ConversationError(
      "NO_MESSAGES",
      `thread ${JSON.stringify(threadId)}: its state has no "messages" list to read`,
    );
  const namespace = transcriptNamespace(threadId);
  const entries: RecallEntry[] = [];
  for (let offset = 0; ; offset += ITEMS_PER_REQUEST) {
    const { items } = await client.store.searchItems(namespace, { limit: ITEMS_PER_REQUEST, offset });
    for (const item of items) {
      const entry = entryOfItem(item.value);
      if (entry) entries.push(entry);
    }
    if (items.length < ITEMS_PER_REQUEST) break;
  }
  const head = messages as PlainMessage[];
  if (entries.length === 0 && head.some((message) => provenanceOf(message))) {
    throw new ConversationError(
      "NO_TRANSCRIPT",
      `thread ${JSON.stringify(threadId)}: its state holds a compaction summary, but the server's store has no transcript under ${JSON.stringify(namespace)}. The messages compaction took out are written there by compactionMiddleware or compactionNode when the graph runs with a store (the Agent Server gives every graph one) and no checkpointer of its own (SQLite, Postgres), whose transcript this client cannot reach.`,
    );
  }
  const slots = orderConversation(head, entries);
  const start = after === undefined ? 0 : after + 1;
  const page = slots.slice(start, start + limit).map((slot, index): ConversationMessage => {
    const position = start + index;
    const versions = slot.versions
      ? { versions: slot.versions.map((version) => versionMessage(version, slot.entry?.messageId ?? slot.head?.id)) }
      : {};
    const edited = slot.edited ? { edited: true as const } : {};
    if (slot.head) return { position, message: slot.head, source: slot.source, ...edited, ...versions };
    const entry = slot.entry!;
    const { message, partial } = messageOf(entry);
    return {
      position,
      message,
      source: slot.source,
      ...edited,
      ...versions,
      ...(partial ? { partial } : {}),
      ...(slot.source === "transcript" ? { compaction: entry.checkpointId } : {}),
    };
  });
  const end = start + page.length;
  return { messages: page, total: slots.length, ...(end < slots.length ? { next: end - 1 } : {}) };
}

const TYPES: Record<string, string> = {
  HumanMessage: "human",
  AIMessage: "ai",
  AIMessageChunk: "ai",
  SystemMessage: "system",
  ToolMessage: "tool",
  ChatMessage: "generic",
  FunctionMessage: "function",
};
const ROLE_TYPES: Record<RecallEntry["role"], string> = {
  user: "human",
  assistant: "ai",
  system: "system",
  tool: "tool",
};

/** An entry's message as the SDK would give it: its stored form (LangGraph's serialized message) read as JSON. */
function messageOf(entry: RecallEntry): { message: PlainMessage; partial?: true } {
  const stored = entry.message ? plain(JSON.parse(entry.message)) : undefined;
  if (stored) return { message: stored };
  return {
    message: {
      type: ROLE_TYPES[entry.role],
      content: entry.text,
      id: entry.messageId,
      ...(entry.name ? { name: entry.name } : {}),
    },
    partial: true,
  };
}

/** A version of a message: its stored form, else its text under the message's id. */
function versionMessage(version: RecallVersion, id: string | undefined): PlainMessage {
  return (
    (version.message ? plain(JSON.parse(version.message)) : undefined) ?? {
      type: "human",
      content: version.text,
      ...(id ? { id } : {}),
    }
  );
}

/** `{ lc: 1, type: "constructor", id: [..., "HumanMessage"], kwargs }` as `{ type: "human", ...kwargs }`. */
function plain(value: unknown): PlainMessage | undefined {
  const serialized = value as { lc?: unknown; type?: unknown; id?: unknown; kwargs?: Record<string, unknown> } | null;
  if (
    serialized?.lc !== 1 ||
    serialized.type !== "constructor" ||
    !Array.isArray(serialized.id) ||
    typeof serialized.kwargs !== "object"
  )
    return undefined;
  const type = TYPES[String(serialized.id.at(-1))];
  if (!type) return undefined;
  const fields: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(serialized.kwargs)) if (!isUndefinedMarker(field)) fields[key] = field;
  return { ...fields, type, content: fields.content ?? "" } as PlainMessage;
}

function isUndefinedMarker(value: unknown): boolean {
  const marker = value as { lc?: unknown; type?: unknown } | null;
  return typeof marker === "object" && marker !== null && marker.lc === 2 && marker.type === "undefined";
}
