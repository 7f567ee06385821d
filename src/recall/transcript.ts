/**
 * `readTranscript`: the whole conversation of a thread, in order — the messages writes of this library took out of
 * the head, from the transcript (the recall index's stored messages), then the head — while the model sees only the
 * compact head. A message the head holds edited (a cleared tool result, an archived output) appears once, as it was
 * before the edit, where the head holds it; summaries are marked, and never stand in for what they cover.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { CompactionError, invalidArgument, requireThreadId, threadNotFound } from "../errors.js";
import { getSummaryProvenance } from "../messages/summary-message.js";
import { deserializeMessage } from "../store/recall-index/message-serde.js";
import { hasLeft } from "../store/recall-index/entries.js";
import type { RecallEntry } from "../store/recall-index/types.js";
import { threadStoreFor, type ThreadStore } from "../store/thread-store.js";
import { transcriptHome } from "../store/transcript-home.js";
import { HeadView } from "./out-of-head.js";
import type { TranscriptStoreOption } from "./search.js";

export const DEFAULT_TRANSCRIPT_PAGE = 200;
export const MAX_TRANSCRIPT_PAGE = 10_000;

export interface TranscriptMessage {
  /** Its place in the whole conversation, from 0 (pass the last one's as `after` for the next page). */
  position: number;
  message: BaseMessage;
  /**
   * "transcript": out of the head, from the transcript; "head": in the head (as it was before an edit, when the head
   * holds it edited: `edited`); "summary": a summary in the head.
   */
  source: "transcript" | "head" | "summary";
  /** The head holds this message edited (cleared, clipped, archived); this is the original. */
  edited?: true;
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

interface Slot {
  source: TranscriptMessage["source"];
  edited?: true;
  head?: BaseMessage;
  entry?: RecallEntry;
}

/** `a` left the head before `b`: at an earlier checkpoint, or earlier in the same one. */
function leftBefore(a: RecallEntry, b: RecallEntry): boolean {
  return a.checkpointId === b.checkpointId ? a.ordinal < b.ordinal : a.checkpointId < b.checkpointId;
}

/**
 * The head's slots with the entries that left it put back where the conversation had them. Entries are taken in the
 * order they left (checkpoint, then place); each goes right after the message it followed (`previousId`, written by
 * entries.ts: for what followed a summary, the last message it covered; for the first message kept after pinned
 * ones a compaction moved behind its summary, the last message before the cut; for what a restore dropped, the last
 * message it brought back) — put back first when it left later — past the messages already put there (the head's
 * summaries looked past) that left before it and do not come after it through the messages each followed; one that
 * had none, after the head's leading system messages. An entry whose predecessor is nowhere (a summary, on entries
 * written before these rules) follows what left the head before it.
 */
function conversationOrder(head: Slot[], entries: RecallEntry[], returned: ReadonlyMap<string, RecallEntry> = new Map()): Slot[] {
  interface Node {
    slot: Slot;
    next?: Node;
    entry: boolean;
  }
  const first: Node = { slot: { source: "head" }, entry: false };
  let tail = first;
  const byId = new Map<string, Node>();
  const idOf = (slot: Slot) => slot.entry?.messageId ?? slot.head?.id;
  for (const slot of head) {
    const node: Node = { slot, entry: false };
    tail.next = node;
    tail = node;
    const id = idOf(slot);
    if (id) byId.set(id, node);
  }
  let anchor = first;
  while (anchor.next && anchor.next.slot.head?.getType() === "system" && !getSummaryProvenance(anchor.next.slot.head)) anchor = anchor.next;
  let last: Node | undefined;
  const sorted = [...entries].sort((a, b) => (leftBefore(a, b) ? -1 : leftBefore(b, a) ? 1 : 0));
  const waiting = new Map(sorted.map((entry) => [entry.messageId, entry]));
  // When a node's message left the head: an entry's, or for a head message that left once and is back (a restore),
  // when it first left; undefined for a head message that never left.
  const leftAt = (node: Node) => (node.entry ? node.slot.entry : returned.get(idOf(node.slot) ?? ""));
  // Where each message that left was (an entry's place, or a returned head message's first departure).
  const placeOf = new Map<string, RecallEntry>([...entries, ...returned.values()].map((entry) => [entry.messageId, entry]));
  // Whether `left` comes after the message `id` in the conversation: the messages it followed, taken back, reach it.
  const follows = (left: RecallEntry, id: string) => {
    let at = left.previousId;
    for (let steps = 0; at !== undefined && steps <= placeOf.size; steps++) {
      if (at === id) return true;
      at = placeOf.get(at)?.previousId;
    }
    return false;
  };
  // Whether `node` goes before `entry`: it left the head before `entry` did, and does not come after it.
  const before = (node: Node, entry: RecallEntry) => {
    const left = leftAt(node);
    return left !== undefined && leftBefore(left, entry) && !follows(left, entry.messageId);
  };
  const insert = (entry: RecallEntry, after?: Node): void => {
    // No predecessor: it was the first message after the system ones. One that is nowhere now (a summary since
    // replaced): after the entry put back before it.
    let at = after ?? (entry.previousId ? (byId.get(entry.previousId) ?? last ?? anchor) : anchor);
    // A summary in the head stands for what it covers: the scan looks past it.
    if (!after) {
      for (let node = at.next; node; node = node.next) {
        if (node.slot.source === "summary") continue;
        if (!before(node, entry)) break;
        at = node;
      }
    }
    const node: Node = { slot: { source: "transcript", entry }, next: at.next, entry: true };
    at.next = node;
    byId.set(entry.messageId, node);
    last = node;
  };
  // Chains whose first message followed one that is nowhere now (a summary since replaced or removed): placed once
  // every other entry is.
  const deferred: RecallEntry[][] = [];
  for (const start of sorted) {
    // A predecessor that left the head later than this message (a removal backfilled by a prune, or a restore's
    // dropped turns, before a compaction of the messages before them) is put back first, so this one follows it.
    const chain: RecallEntry[] = [];
    for (let entry: RecallEntry | undefined = start; entry && waiting.has(entry.messageId); entry = entry.previousId ? waiting.get(entry.previousId) : undefined) {
      waiting.delete(entry.messageId);
      chain.push(entry);
    }
    const root = chain.at(-1);
    if (!root) continue;
    if (root.previousId && !byId.has(root.previousId)) {
      deferred.push(chain);
      continue;
    }
    for (let index = chain.length - 1; index >= 0; index--) insert(chain[index]!);
  }
  for (const chain of deferred) {
    const root = chain.at(-1)!;
    if (byId.has(root.previousId!)) {
      // Its predecessor was in a chain placed before it.
      for (let index = chain.length - 1; index >= 0; index--) insert(chain[index]!);
      continue;
    }
    // A summary stood at the front of the head: what followed it follows the entries put back at the front that
    // left the head before it did (what that summary covered), and precedes those that left later.
    let at = anchor;
    // A summary in the head stands for what it covers, so the scan goes past it.
    for (let node = anchor.next; node; node = node.next) {
      if (node.slot.source === "summary") continue;
      if (!before(node, root)) break;
      at = node;
    }
    // Exactly there, and the chain together.
    for (let index = chain.length - 1; index >= 0; index--) {
      insert(chain[index]!, at);
      at = byId.get(chain[index]!.messageId)!;
    }
  }
  const slots: Slot[] = [];
  for (let node = first.next; node; node = node.next) slots.push(node.slot);
  return slots;
}

/** A message of an entry: its stored form, else the checkpoint that held it, else its indexed text (partial). */
async function messageOf(store: ThreadStore, threadId: string, entry: RecallEntry, checkpoints: Map<string, Promise<BaseMessage[] | undefined>>): Promise<{ message: BaseMessage; partial?: true }> {
  if (entry.message) return { message: await deserializeMessage(entry.message) };
  let held = checkpoints.get(entry.checkpointId);
  if (!held) checkpoints.set(entry.checkpointId, (held = store.readCheckpoint(threadId, entry.checkpointId).then((stored) => stored?.messages)));
  const found = (await held)?.[entry.ordinal];
  if (found && found.id === entry.messageId) return { message: found };
  const { AIMessage, HumanMessage, SystemMessage, ToolMessage } = await import("@langchain/core/messages");
  const fields = { id: entry.messageId, content: entry.text, ...(entry.name ? { name: entry.name } : {}) };
  const message =
    entry.role === "assistant" ? new AIMessage(fields) : entry.role === "system" ? new SystemMessage(fields) : entry.role === "tool" ? new ToolMessage({ ...fields, tool_call_id: "" }) : new HumanMessage(fields);
  return { message, partial: true };
}

/**
 * A page of the thread's whole conversation, in order. Reads only.
 * @throws CompactionError MISSING_THREAD_ID; THREAD_NOT_FOUND; INVALID_ARGUMENT for a bad `after` or `limit`.
 */
export async function readTranscript(checkpointer: BaseCheckpointSaver, config: unknown, options: ReadTranscriptOptions = {}): Promise<TranscriptPage> {
  const threadId = requireThreadId(config, "readTranscript");
  const { after, limit = DEFAULT_TRANSCRIPT_PAGE } = options;
  if (after !== undefined && (!Number.isInteger(after) || after < -1)) throw invalidArgument("after", after, "a position (an integer >= -1) from a previous page");
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_TRANSCRIPT_PAGE) throw invalidArgument("limit", limit, `an integer from 1 to ${MAX_TRANSCRIPT_PAGE}`);
  const store = threadStoreFor(checkpointer);
  const head = await store.readHead(threadId);
  const entries = await transcriptHome({ checkpointer, store: options.store })!.entries(threadId);
  if (!head && entries.length === 0) throw threadNotFound(threadId);
  const messages = head?.messages ?? [];
  const view = new HeadView(messages);
  const inHead = new Set(messages.map((message) => message.id).filter((id): id is string => typeof id === "string"));
  const out = entries.filter((entry) => view.outOfHead(entry));
  // The original of a message the head holds edited takes the edited copy's place.
  const originals = new Map(out.filter((entry) => inHead.has(entry.messageId)).map((entry) => [entry.messageId, entry]));
  const fromHead = (message: BaseMessage): Slot => {
    if (getSummaryProvenance(message)) return { source: "summary", head: message };
    const original = message.id ? originals.get(message.id) : undefined;
    return original ? { source: "head", edited: true, entry: original } : { source: "head", head: message };
  };
  // Head messages that left once and came back (a restore): an original whose edited copy never left has no place.
  const returned = new Map(entries.filter((entry) => inHead.has(entry.messageId) && hasLeft(entry)).map((entry) => [entry.messageId, entry]));
  const slots = conversationOrder(messages.map(fromHead), out.filter((entry) => !inHead.has(entry.messageId)), returned);
  const start = after === undefined ? 0 : after + 1;
  const page = slots.slice(start, start + limit);
  const checkpoints = new Map<string, Promise<BaseMessage[] | undefined>>();
  try {
    const read = await Promise.all(
      page.map(async (slot, index): Promise<TranscriptMessage> => {
        const position = start + index;
        if (slot.head) return { position, message: slot.head, source: slot.source };
        const { message, partial } = await messageOf(store, threadId, slot.entry!, checkpoints);
        return { position, message, source: slot.source, ...(slot.edited ? { edited: true as const } : {}), ...(partial ? { partial } : {}) };
      }),
    );
    const end = start + page.length;
    return { messages: read, total: slots.length, ...(end < slots.length ? { next: end - 1 } : {}) };
  } catch (error) {
    if (CompactionError.isInstance(error)) throw error;
    throw new CompactionError({ code: "STORE_UNAVAILABLE", value: threadId, message: `thread ${JSON.stringify(threadId)}: the transcript could not be read: ${(error as Error).message}`, cause: error });
  }
}
