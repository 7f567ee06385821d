/**
 * What the recall index answers: the messages that are out of the thread's head. The index keeps an entry for every
 * message a write of this library took out (store/recall-index/types.ts), and never takes one out, so a message that
 * came back into the head (a restore, or a turn that superseded a write) still has its entry: readers leave out an
 * entry while the head holds that message as it was indexed. Computed from the head at each read, this holds
 * whichever write came last — the library's, or a turn's that superseded it.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { editOf } from "../messages/markers.js";
import { getSummaryProvenance } from "../messages/summary-message.js";
import { recallText } from "../store/recall-index/entries.js";
import type { ThreadStore } from "../store/thread-store.js";

/** The head's messages as the index sees them: by id, each one's text computed only when an entry asks. */
export class HeadView {
  private readonly byId = new Map<string, BaseMessage>();
  private readonly texts = new Map<string, string>();

  constructor(head: readonly BaseMessage[]) {
    for (const message of head) {
      if (typeof message.id === "string" && message.id !== "" && !editOf(message) && getSummaryProvenance(message) === undefined) this.byId.set(message.id, message);
    }
  }

  /** Messages an entry could be hidden by. */
  get size(): number {
    return this.byId.size;
  }

  /** Whether an entry (its message id and indexed text) is out of the head. */
  outOfHead(entry: { messageId: string; text: string }): boolean {
    const message = this.byId.get(entry.messageId);
    if (!message) return true;
    let text = this.texts.get(entry.messageId);
    if (text === undefined) this.texts.set(entry.messageId, (text = recallText(message)));
    return text !== entry.text;
  }
}

/** The last head read per store and thread, reused while the head's id is unchanged (a cheap read). */
const views = new WeakMap<ThreadStore, Map<string, { headId: string; view: HeadView }>>();
const THREADS_KEPT = 64;

/** The view of the thread's current head (empty when the thread has none). */
export async function headViewOf(store: ThreadStore, threadId: string): Promise<HeadView> {
  const headId = await store.readHeadId(threadId);
  if (headId === undefined) return new HeadView([]);
  let byThread = views.get(store);
  if (!byThread) views.set(store, (byThread = new Map()));
  const cached = byThread.get(threadId);
  if (cached?.headId === headId) return cached.view;
  const head = await store.readHead(threadId, headId);
  const view = new HeadView(head?.messages ?? []);
  byThread.delete(threadId);
  byThread.set(threadId, { headId, view });
  if (byThread.size > THREADS_KEPT) byThread.delete(byThread.keys().next().value!);
  return view;
}
