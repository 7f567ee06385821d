/**
 * `readTranscript`: the whole conversation of a thread, in order — the messages writes of this library took out of
 * the head, from the transcript (the recall index's stored messages), then the head — while the model sees only the
 * compact head. A message the head holds edited (a cleared tool result, an archived output) appears once, as it was
 * before the edit, where the head holds it; summaries are marked, and never stand in for what they cover.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { CompactionError, requireThreadId, threadNotFound } from "../errors.js";
import { argument } from "../options/check.js";
import { integer } from "../options/rules.js";
import { deserializeMessage } from "../store/recall-index/message-serde.js";
import type { RecallEntry, RecallVersion } from "../store/recall-index/types.js";
import { threadStoreFor, type ThreadStore } from "../store/thread-store.js";
import { transcriptHome } from "../store/transcript-home.js";
import type { TranscriptStoreOption } from "./search.js";
import { orderConversation } from "./conversation-order.js";

export const DEFAULT_TRANSCRIPT_PAGE = 200;
export const MAX_TRANSCRIPT_PAGE = 10_000;
const AFTER = integer(-1, { says: "a position (an integer >= -1) from a previous page" }).optional();
const PAGE = integer(1, { max: MAX_TRANSCRIPT_PAGE });

export interface TranscriptMessage {
  /** Its place in the whole conversation, from 0 (pass the last one's as `after` for the next page). */
  position: number;
  message: BaseMessage;
  /**
   * "transcript": out of the head, from the transcript; "head": in the head (as it was before an edit, when the head
   * holds it edited: `edited`); "summary": a summary in the head.
   */
  source: "transcript" | "head" | "summary";
  /**
   * The message was edited: the head holds it cleared, clipped or archived by this library (this is the original),
   * or the application wrote over it under its id (`updateState`, an `Overwrite`: this is the head's version, and
   * `versions` holds the earlier ones).
   */
  edited?: true;
  /**
   * The message's other versions, oldest first: what the thread held under the same id before or after an edit that
   * kept the id. Absent for a message that was never edited.
   */
  versions?: BaseMessage[];
  /**
   * Only its indexed text could be recovered (an entry written before the transcript existed, whose checkpoint is
   * gone): `reindexThread` before pruning avoids it.
   */
  partial?: true;
}

export interface TranscriptPage {
  messages: TranscriptMessage[];
  /** Messages in the whole conversation. */
  total: number;
  /** `after` for the next page, when there is one. */
  next?: number;
}

export interface ReadTranscriptOptions extends TranscriptStoreOption {
  /** Start after this position (a previous page's `next`). @default the beginning */
  after?: number;
  /** Messages per page. @default 200 */
  limit?: number;
}

/** A message of an entry: its stored form, else the checkpoint that held it, else its indexed text (partial). */
async function messageOf(
  store: ThreadStore,
  threadId: string,
  entry: RecallEntry,
  checkpoints: Map<string, Promise<BaseMessage[] | undefined>>,
): Promise<{ message: BaseMessage; partial?: true }> {
  if (entry.message) return { message: await deserializeMessage(entry.message) };
  let held = checkpoints.get(entry.checkpointId);
  if (!held)
    checkpoints.set(
      entry.checkpointId,
      (held = store.readCheckpoint(threadId, entry.checkpointId).then((stored) => stored?.messages)),
    );
  const found = (await held)?.[entry.ordinal];
  if (found && found.id === entry.messageId) return { message: found };
  const { AIMessage, HumanMessage, SystemMessage, ToolMessage } = await import("@langchain/core/messages");
  const fields = { id: entry.messageId, content: entry.text, ...(entry.name ? { name: entry.name } : {}) };
  const message =
    entry.role === "assistant"
      ? new AIMessage(fields)
      : entry.role === "system"
        ? new SystemMessage(fields)
        : entry.role === "tool"
          ? new ToolMessage({ ...fields, tool_call_id: "" })
          : new HumanMessage(fields);
  return { message, partial: true };
}

/** A version of a message: its stored form, else its text under the message's id. */
async function versionMessage(id: string | undefined, version: RecallVersion): Promise<BaseMessage> {
  if (version.message) return deserializeMessage(version.message);
  const { HumanMessage } = await import("@langchain/core/messages");
  return new HumanMessage({ content: version.text, ...(id ? { id } : {}) });
}

/**
 * A page of the thread's whole conversation, in order. Reads only.
 * @throws CompactionError MISSING_THREAD_ID; THREAD_NOT_FOUND; INVALID_ARGUMENT for a bad `after` or `limit`.
 */
export async function readTranscript(
  checkpointer: BaseCheckpointSaver,
  config: unknown,
  options: ReadTranscriptOptions = {},
): Promise<TranscriptPage> {
  const threadId = requireThreadId(config, "readTranscript");
  const { after, limit = DEFAULT_TRANSCRIPT_PAGE } = options;
  argument("after", after, AFTER);
  argument("limit", limit, PAGE);
  const store = threadStoreFor(checkpointer);
  const head = await store.readHead(threadId);
  const entries = await transcriptHome({ checkpointer, store: options.store })!.entries(threadId);
  if (!head && entries.length === 0) throw threadNotFound(threadId);
  const messages = head?.messages ?? [];
  const slots = orderConversation(messages, entries);
  const start = after === undefined ? 0 : after + 1;
  const page = slots.slice(start, start + limit);
  const checkpoints = new Map<string, Promise<BaseMessage[] | undefined>>();
  try {
    const read = await Promise.all(
      page.map(async (slot, index): Promise<TranscriptMessage> => {
        const position = start + index;
        const versions = slot.versions
          ? {
              versions: await Promise.all(
                slot.versions.map((version) => versionMessage(slot.entry?.messageId ?? slot.head?.id, version)),
              ),
            }
          : {};
        const edited = slot.edited ? { edited: true as const } : {};
        if (slot.head) return { position, message: slot.head, source: slot.source, ...edited, ...versions };
        const { message, partial } = await messageOf(store, threadId, slot.entry!, checkpoints);
        return { position, message, source: slot.source, ...edited, ...(partial ? { partial } : {}), ...versions };
      }),
    );
    const end = start + page.length;
    return { messages: read, total: slots.length, ...(end < slots.length ? { next: end - 1 } : {}) };
  } catch (error) {
    if (CompactionError.isInstance(error)) throw error;
    throw new CompactionError({
      code: "STORE_UNAVAILABLE",
      value: threadId,
      message: `thread ${JSON.stringify(threadId)}: the transcript could not be read: ${(error as Error).message}`,
      cause: error,
    });
  }
}
