/**
 * What a force-write changes in the recall index, from the head it replaces and the history it writes:
 * - a message of the old head whose id is not in the new head left it: indexed;
 * - a message whose id stays but whose stored form changed (messages/stored-form.ts) was edited (cleared, clipped, archived): its original is
 *   indexed, unless the old copy was itself an edit (then the original is indexed already), with no place yet
 *   (`NOT_LEFT`): the message is still in the head;
 * - an edited copy that leaves the head for the first time gives its original's entry the place where it left
 *   (`move`), so the transcript's order is the conversation's; a later departure (after a restore) keeps that place;
 * - nothing is taken out: a message that comes back (a restore) keeps its entry, hidden from readers while the head
 *   holds it as it is (recall/out-of-head.ts);
 * - summaries are never indexed (they are derived; the messages they cover are), nor messages without an id.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { formatDay, messageDate } from "../../messages/date.js";
import { editOf } from "../../messages/markers.js";
import { recallText } from "../../messages/message-shape.js";
import { getSummaryProvenance } from "../../messages/summary-message.js";
import { storedForm } from "../../messages/stored-form.js";
import { serializeMessage } from "./message-serde.js";
import type { RecallChanges, RecallEntry, RecallMessage, RecallMove } from "./types.js";
import { hasLeft } from "./transcript-items.js";

const ROLES: Record<string, RecallEntry["role"]> = { human: "user", ai: "assistant", tool: "tool", system: "system" };

/** A message's role as the index (and the transcript) names it. */
export function recallRole(message: BaseMessage): RecallEntry["role"] {
  return ROLES[message.getType()] ?? "user";
}

/**
 * Who and when, searchable beside the text: the message's name and its day ("Caroline 8 May 2023"), so "what did
 * Melanie paint in June?" favours Melanie's messages of June.
 */
export function recallLabel(entry: Pick<RecallEntry, "name" | "date">): string {
  return [entry.name ?? "", entry.date ? formatDay(new Date(entry.date)) : ""].filter(Boolean).join(" ");
}

export { recallText };

/** Characters of the previous message kept as an entry's context. */
export const CONTEXT_CHARS = 1_000;

/**
 * The entry of `message`, held by `checkpointId` at `ordinal`; `previous` is the message before it there (its text
 * becomes the entry's context, unless it is a summary or a system message).
 */
export function recallEntry(
  message: BaseMessage,
  checkpointId: string,
  ordinal: number,
  previous?: BaseMessage,
  textOf: (message: BaseMessage) => string = recallText,
  previousId: string | undefined = predecessorId(previous),
): RecallEntry {
  const date = messageDate(message);
  const context =
    previous && getSummaryProvenance(previous) === undefined && previous.getType() !== "system"
      ? textOf(previous).slice(0, CONTEXT_CHARS)
      : "";
  return {
    messageId: message.id!,
    role: recallRole(message),
    ...(message.name ? { name: message.name } : {}),
    ...(date ? { date: date.toISOString() } : {}),
    checkpointId,
    ordinal,
    text: textOf(message),
    ...(context ? { context } : {}),
    message: serializeMessage(message),
    ...(previousId ? { previousId } : {}),
  };
}

/**
 * The id a message that followed `previous` records as the one before it in the conversation: a summary stands for
 * the last message it covered (summaries come and go; what they covered stays in the transcript).
 */
export function predecessorId(previous: BaseMessage | undefined): string | undefined {
  if (!previous) return undefined;
  return getSummaryProvenance(previous)?.lastCoveredId ?? previous.id ?? undefined;
}

/**
 * The ordinal of an original whose edited copy is still in the head (the entry a clear, clip or archive writes): the
 * message has not left, so the entry has no place in the conversation's order yet; the first `move` gives it one.
 */
export const NOT_LEFT = -1;

/** Whether an entry's place is where its message left the head (not an edit's `NOT_LEFT`). */
export { hasLeft };

/** recallText, computed once per message: a message's text serves as its entry, its comparison and its successor's context. */
function memoizedText(): (message: BaseMessage) => string {
  const texts = new Map<BaseMessage, string>();
  return (message) => {
    let text = texts.get(message);
    if (text === undefined) texts.set(message, (text = recallText(message)));
    return text;
  };
}

const indexable = (message: BaseMessage) =>
  typeof message.id === "string" && message.id !== "" && getSummaryProvenance(message) === undefined;

/** The index changes of replacing the head `checkpointId` (holding `before`) by a history holding `after`. */
export function recallChanges(
  threadId: string,
  checkpointId: string,
  before: readonly BaseMessage[],
  after: readonly BaseMessage[],
): RecallChanges {
  const textOf = memoizedText();
  const next = new Map<string, BaseMessage>();
  for (const message of after) if (indexable(message)) next.set(message.id!, message);
  const add: RecallEntry[] = [];
  const move: RecallMove[] = [];
  const previousOf = conversationPrevious(before, after);
  before.forEach((message, ordinal) => {
    if (!indexable(message)) return;
    const kept = next.get(message.id!);
    // An edited copy leaving: its original is indexed already (by the write that edited it); only its place moves,
    // so the transcript keeps the original where the conversation had it.
    const previousId = previousOf(ordinal);
    if (!kept && editOf(message))
      move.push({ messageId: message.id!, checkpointId, ordinal, ...(previousId ? { previousId } : {}) });
    else if (!kept) add.push(recallEntry(message, checkpointId, ordinal, before[ordinal - 1], textOf, previousId));
    else if (kept !== message && storedForm(message) !== storedForm(kept) && !editOf(message))
      add.push(recallEntry(message, checkpointId, NOT_LEFT, before[ordinal - 1], textOf));
  });
  return { threadId, add, ...(move.length > 0 ? { move } : {}) };
}

const pinsCache = new WeakMap<readonly BaseMessage[], Map<string, { pins: Set<string>; followedId: string }>>();

/**
 * The id of the message `messages[ordinal]` followed in the conversation: the one before it (for a summary, the last
 * message it covered), or, for the first message a compaction kept after the pinned messages it moved behind its
 * summary, the last message before that compaction's cut.
 */
export function followedIn(messages: readonly BaseMessage[], ordinal: number): string | undefined {
  let kept = pinsCache.get(messages);
  if (!kept) {
    kept = new Map();
    for (const message of messages) {
      const pins = getSummaryProvenance(message)?.pins;
      if (pins) kept.set(pins.keptId, { pins: new Set(pins.ids), followedId: pins.followedId });
    }
    pinsCache.set(messages, kept);
  }
  const previous = messages[ordinal - 1];
  const moved = kept.get(messages[ordinal]?.id ?? "");
  return moved && previous?.id !== undefined && moved.pins.has(previous.id)
    ? moved.followedId
    : predecessorId(previous);
}

/**
 * The id of the message a leaving message of `before` follows in the conversation: the one before it in `before`
 * (for a summary, the last message it covered), unless `after` holds that one followed by messages `before` did not
 * hold (a restore's messages, which came before what the restore drops): then the last of those.
 */
function conversationPrevious(
  before: readonly BaseMessage[],
  after: readonly BaseMessage[],
): (ordinal: number) => string | undefined {
  const held = new Set(before.map((message) => message.id));
  const at = new Map(after.map((message, index) => [message.id, index] as const));
  const returned = (message: BaseMessage | undefined) =>
    message !== undefined && indexable(message) && !held.has(message.id);
  return (ordinal) => {
    const id = followedIn(before, ordinal);
    let index = id === undefined ? undefined : at.get(id);
    if (index === undefined) return id;
    while (returned(after[index + 1])) index++;
    return after[index]!.id;
  };
}

/** An entry as a search answers it: without what only the transcript needs (its place, context, stored message). */
export function recallMessage(entry: RecallEntry): RecallMessage {
  const { ordinal: _ordinal, context: _context, message: _message, previousId: _previousId, ...message } = entry;
  return message;
}

/**
 * The entry `move` leaves: the place where the edited copy left, when the original has none yet (`NOT_LEFT`); an
 * entry that has one (the message left before, came back with a restore, and its edited copy left again) keeps it.
 */
export function moved(entry: RecallEntry, { checkpointId, ordinal, previousId }: RecallMove): RecallEntry {
  if (hasLeft(entry)) return entry;
  const { previousId: _previous, ...rest } = entry;
  return { ...rest, checkpointId, ordinal, ...(previousId ? { previousId } : {}) };
}
