/**
 * The order of a thread's whole conversation, from its head and its transcript's entries: the messages writes of this
 * library took out of the head put back where the conversation had them, a message the head holds edited in its
 * original's place, summaries marked. Shared by `readTranscript` (recall/transcript.ts) and the browser client
 * (src/client.ts), so both show one order. Plain data: no Node built-ins, nothing of LangChain at run time.
 */
import { editOf } from "../messages/markers.js";
import { recallText, typeOf, type MessageShape } from "../messages/message-shape.js";
import { provenanceOf } from "../messages/provenance.js";
import { storedForm, storedFormOfSerialized } from "../messages/stored-form.js";
import { hasLeft } from "../store/recall-index/transcript-items.js";
import type { RecallEntry, RecallVersion } from "../store/recall-index/types.js";
import { versionOf } from "../store/recall-index/versions.js";

/** The head's messages as the index sees them: by id, each one's stored form computed only when an entry asks. */
export class HeadView<M extends MessageShape = MessageShape> {
  private readonly byId = new Map<string, M>();

  constructor(head: readonly M[]) {
    for (const message of head) {
      if (
        typeof message.id === "string" &&
        message.id !== "" &&
        !editOf(message) &&
        provenanceOf(message) === undefined
      )
        this.byId.set(message.id, message);
    }
  }

  /**
   * Whether the head holds the message (a copy this library edited, a cleared or archived tool result, does not count:
   * its original is the message). A search finds only messages the head does not hold.
   */
  holds(messageId: string): boolean {
    return this.byId.has(messageId);
  }

  /** Messages an entry could be hidden by. */
  get size(): number {
    return this.byId.size;
  }

  /**
   * Whether a version of a message (an entry or one of its versions: its id, its stored message or, on an entry
   * recorded before the transcript stored messages, its text) is out of the head: the head holds no message under
   * its id, or holds another version of it.
   */
  outOfHead(entry: { messageId: string; text: string; message?: string }): boolean {
    const message = this.byId.get(entry.messageId);
    if (!message) return true;
    return entry.message === undefined
      ? recallText(message) !== entry.text
      : storedForm(message) !== storedFormOfSerialized(entry.message);
  }
}

/** A place in the conversation: a message of the head, or an entry of the transcript put back where it was. */
export interface Slot<M extends MessageShape> {
  /** "transcript": out of the head; "head": in it (as it was before an edit: `edited`); "summary": a summary in it. */
  source: "transcript" | "head" | "summary";
  edited?: true;
  head?: M;
  entry?: RecallEntry;
  /** The message's other versions the transcript holds (an edit that kept its id), oldest first. */
  versions?: RecallVersion[];
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
function conversationOrder<M extends MessageShape>(
  head: Slot<M>[],
  entries: RecallEntry[],
  returned: ReadonlyMap<string, RecallEntry> = new Map(),
): Slot<M>[] {
  interface Node {
    slot: Slot<M>;
    next?: Node;
    entry: boolean;
  }
  const first: Node = { slot: { source: "head" }, entry: false };
  let tail = first;
  const byId = new Map<string, Node>();
  const idOf = (slot: Slot<M>) => slot.entry?.messageId ?? slot.head?.id ?? undefined;
  for (const slot of head) {
    const node: Node = { slot, entry: false };
    tail.next = node;
    tail = node;
    const id = idOf(slot);
    if (id) byId.set(id, node);
  }
  let anchor = first;
  while (anchor.next?.slot.head && typeOf(anchor.next.slot.head) === "system" && !provenanceOf(anchor.next.slot.head))
    anchor = anchor.next;
  let last: Node | undefined;
  const sorted = [...entries].sort((a, b) => (leftBefore(a, b) ? -1 : leftBefore(b, a) ? 1 : 0));
  const waiting = new Map(sorted.map((entry) => [entry.messageId, entry]));
  // When a node's message left the head: an entry's, or for a head message that left once and is back (a restore),
  // when it first left; undefined for a head message that never left.
  const leftAt = (node: Node) => (node.entry ? node.slot.entry : returned.get(idOf(node.slot) ?? ""));
  // Where each message that left was (an entry's place, or a returned head message's first departure).
  const placeOf = new Map<string, RecallEntry>(
    [...entries, ...returned.values()].map((entry) => [entry.messageId, entry]),
  );
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
    for (
      let entry: RecallEntry | undefined = start;
      entry && waiting.has(entry.messageId);
      entry = entry.previousId ? waiting.get(entry.previousId) : undefined
    ) {
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
  const slots: Slot<M>[] = [];
  for (let node = first.next; node; node = node.next) slots.push(node.slot);
  return slots;
}

/** The conversation's slots, in order, from the head's messages and every entry of the thread's transcript. */
export function orderConversation<M extends MessageShape>(
  messages: readonly M[],
  entries: readonly RecallEntry[],
): Slot<M>[] {
  const view = new HeadView(messages);
  const inHead = new Set(messages.map((message) => message.id).filter((id): id is string => typeof id === "string"));
  const out = entries.filter((entry) => view.outOfHead(entry));
  const entryOf = new Map(
    entries.filter((entry) => inHead.has(entry.messageId)).map((entry) => [entry.messageId, entry]),
  );
  // The original of a message the head holds edited by this library takes the edited copy's place.
  const originals = new Map(
    out.filter((entry) => inHead.has(entry.messageId)).map((entry) => [entry.messageId, entry]),
  );
  const fromHead = (message: M): Slot<M> => {
    if (provenanceOf(message)) return { source: "summary", head: message };
    const entry = message.id ? entryOf.get(message.id) : undefined;
    if (!entry) return { source: "head", head: message };
    if (editOf(message) && originals.has(entry.messageId))
      return { source: "head", edited: true, entry, ...withVersions(entry.versions) };
    // Edited under its id by the application (`updateState`, an `Overwrite`): the head's version, with the others.
    if (originals.has(entry.messageId))
      return {
        source: "head",
        head: message,
        edited: true,
        ...withVersions([...(entry.versions ?? []), versionOf(entry)]),
      };
    return { source: "head", head: message, ...withVersions(entry.versions) };
  };
  // Head messages that left once and came back (a restore): an original whose edited copy never left has no place.
  const returned = new Map(
    entries.filter((entry) => inHead.has(entry.messageId) && hasLeft(entry)).map((entry) => [entry.messageId, entry]),
  );
  const slots = conversationOrder(
    messages.map(fromHead),
    out.filter((entry) => !inHead.has(entry.messageId)),
    returned,
  );
  return slots.map((slot) =>
    slot.source === "transcript" && slot.entry?.versions ? { ...slot, versions: slot.entry.versions } : slot,
  );
}

function withVersions(versions: RecallVersion[] | undefined): { versions?: RecallVersion[] } {
  if (!versions || versions.length === 0) return {};
  return {
    versions: [...versions].sort((a, b) =>
      a.checkpointId < b.checkpointId ? -1 : a.checkpointId > b.checkpointId ? 1 : 0,
    ),
  };
}
