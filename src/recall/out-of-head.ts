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

/** message id → its text, for each message the head holds unedited: an entry with that id and text is in the head. */
export type HeadTexts = ReadonlyMap<string, string>;

export function headTexts(head: readonly BaseMessage[]): HeadTexts {
  const texts = new Map<string, string>();
  for (const message of head) {
    if (typeof message.id === "string" && message.id !== "" && !editOf(message) && getSummaryProvenance(message) === undefined) texts.set(message.id, recallText(message));
  }
  return texts;
}

/** Whether an entry (its message id and indexed text) is out of the head. */
export function outOfHead(head: HeadTexts, entry: { messageId: string; text: string }): boolean {
  return head.get(entry.messageId) !== entry.text;
}
