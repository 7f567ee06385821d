/**
 * What the recall index answers: the messages that are out of the thread's head. The index keeps an entry for every
 * message a write of this library took out (store/recall-index/types.ts), and never takes one out, so a message that
 * came back into the head (a restore, or a turn that superseded a write) still has its entry: readers leave out an
 * entry while the head holds that message as it was indexed. Computed from the head at each read, this holds
 * whichever write came last — the library's, or a turn's that superseded it.
 */
import type { ThreadStore } from "../store/thread-store.js";

export { HeadView } from "./conversation-order.js";
import { HeadView } from "./conversation-order.js";

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
