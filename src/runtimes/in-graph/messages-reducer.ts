/**
 * A messages reducer that understands a compaction coming out of a subgraph. The in-graph step replaces the state's
 * messages with `[summary, kept…]` (the node as an `Overwrite`, the middleware as `[RemoveMessage(REMOVE_ALL_MESSAGES),
 * …]`) — inside the graph the step runs in. When that graph is itself a node of a parent (createSupervisor runs
 * its supervisor as a compiled createReactAgent), the parent receives the subgraph's final messages,
 * `[summary, kept…, new…]`, and LangGraph's reducer merges them by id: the summarized messages stay in the parent's
 * head, and the summary is appended after them, one more each compaction.
 *
 * This reducer reads the summary's provenance: a summary the head does not hold yet takes the messages it covers
 * (and the summary it folded in) out of the head, and sits where the first of them was. Everything else is
 * LangGraph's `messagesStateReducer`, unchanged. Give it to the graph as its state schema —
 * `createSupervisor({ …, stateSchema: CompactionAgentState, preModelHook: compactionNode(…) })` — and the parent's
 * head shrinks with each compaction, holding one summary.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { Annotation, messagesStateReducer, REMOVE_ALL_MESSAGES, type Messages } from "@langchain/langgraph";
import { getSummaryProvenance } from "../../messages/summary-message.js";

/** Set, not enumerable (never stored), on every list this reducer returns: the state a step reads came through it. */
const REDUCED = Symbol.for("langgraph-compaction.reduced");

/** Whether `messages` is the value of a channel whose reducer is `compactionMessagesReducer`. */
export function reducedByCompactionState(messages: readonly unknown[]): boolean {
  return (messages as { [REDUCED]?: boolean })[REDUCED] === true;
}

const signed = (messages: BaseMessage[]): BaseMessage[] =>
  Object.isExtensible(messages) && !(REDUCED in messages)
    ? Object.defineProperty(messages, REDUCED, { value: true })
    : messages;

const isRemoveAll = (message: unknown): boolean =>
  (message as { getType?: () => string; id?: string })?.getType?.() === "remove" &&
  (message as { id?: string }).id === REMOVE_ALL_MESSAGES;

/**
 * `messagesStateReducer`, and a summary new to `left` replaces the messages its provenance covers (and the summary
 * it folded in), at the place of the first of them.
 */
export function compactionMessagesReducer(left: Messages, right: Messages): BaseMessage[] {
  return signed(merge(left, right));
}

function merge(left: Messages, right: Messages): BaseMessage[] {
  const incoming = (Array.isArray(right) ? right : [right]) as unknown[];
  const merged = messagesStateReducer(left, right);
  if (incoming.some(isRemoveAll)) return merged;
  const before = messagesStateReducer([], left);
  const held = new Set(before.map((message) => message.id));
  const replaced = new Set<string>();
  const summaries = new Set<string>();
  for (const message of merged) {
    const provenance = message.id !== undefined && !held.has(message.id) ? getSummaryProvenance(message) : undefined;
    if (!provenance) continue;
    summaries.add(message.id!);
    for (const id of provenance.coveredIds) replaced.add(id);
    if (provenance.previousSummaryId) replaced.add(provenance.previousSummaryId);
  }
  if (summaries.size === 0) return merged;
  // The new summaries go where the first message they replace was; the rest keeps its order.
  const at = before.findIndex((message) => message.id !== undefined && replaced.has(message.id));
  const rest = merged.filter(
    (message) => !(message.id !== undefined && (replaced.has(message.id) || summaries.has(message.id))),
  );
  const fresh = merged.filter((message) => message.id !== undefined && summaries.has(message.id));
  const keptBefore =
    at < 0
      ? 0
      : before.slice(0, at).filter((message) => !(message.id !== undefined && replaced.has(message.id))).length;
  return [...rest.slice(0, keptBefore), ...fresh, ...rest.slice(keptBefore)];
}

/**
 * The state of `createReactAgent` and `createSupervisor` (their `messages` and `structuredResponse`), with the
 * messages reducer that lets a compaction made inside the supervisor's agent shrink the team's head: pass it as
 * `stateSchema` beside `preModelHook: compactionNode(…)`.
 */
export const CompactionAgentState = Annotation.Root({
  messages: Annotation<BaseMessage[], Messages>({ reducer: compactionMessagesReducer, default: () => [] }),
  structuredResponse: Annotation<Record<string, unknown>>,
});
