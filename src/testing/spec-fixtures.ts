/**
 * The fixtures of compactionSpec (compaction-spec.ts): the thread and its turns, the graphs that run them (plain
 * StateGraphs whose nodes answer with fixed messages, the messages stored as a list or as deltas), and the reads and
 * the nothing-lost check every case makes.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver, CheckpointTuple } from "@langchain/langgraph-checkpoint";
import { MessagesAnnotation, MessagesDeltaValue, START, StateGraph, StateSchema } from "@langchain/langgraph";
import { vitestApi } from "./vitest-api.js";
import { auditThread } from "../engine/audit.js";
import { threadStoreFor } from "../store/thread-store.js";

export const TURNS = 12;
export const THREAD = "spec-thread";
export const config = { configurable: { thread_id: THREAD } };

/** A turn's question and answer, each with a distinctive code that recall can find. */
export const question = (turn: number) =>
  `Question ${turn}: where is the crate QX${1000 + turn} stored, and who signed for it?`;
export const answer = (turn: number) =>
  `Answer ${turn}: crate QX${1000 + turn} is in aisle ${turn}, signed for by the night shift; the manifest lists ${turn * 7} pallets.`;

/**
 * The two ways LangGraph stores a conversation: the whole list in every checkpoint (`MessagesAnnotation`), or deltas
 * with periodic snapshots (`MessagesDeltaValue`, a DeltaChannel). Every case runs on both.
 */
export const MESSAGE_STATES = {
  "a messages list": MessagesAnnotation,
  "MessagesDeltaValue (delta channel)": new StateSchema({ messages: MessagesDeltaValue }),
} as const;
export type MessageState = (typeof MESSAGE_STATES)[keyof typeof MESSAGE_STATES];
let state: MessageState = MessagesAnnotation;

/** The message state the next graphs are built over (each describe block of the suite sets its own). */
export function useMessageState(next: MessageState): void {
  state = next;
}

/** A graph over the suite's current message state (the cast: both states have the same `messages` shape). */
export function messagesGraph() {
  return new StateGraph(state as typeof MessagesAnnotation);
}

export function chatGraph(saver: BaseCheckpointSaver) {
  return messagesGraph()
    .addNode("agent", async (state) => {
      // The turn's number is read from its question: after a compaction the thread holds fewer questions.
      const asked = String(state.messages.at(-1)?.content ?? "").match(/^Question (\d+):/);
      return { messages: [new AIMessage(answer(Number(asked?.[1] ?? -1)))] };
    })
    .addEdge(START, "agent")
    .compile({ checkpointer: saver });
}

/** A graph whose every turn calls a tool with a bulky result, then answers. */
export function toolGraph(saver: BaseCheckpointSaver) {
  let call = 0;
  return messagesGraph()
    .addNode("agent", async () => {
      const id = `call_${++call}`;
      return {
        messages: [
          new AIMessage({ content: "", tool_calls: [{ id, name: "inventory_report", args: { page: call } }] }),
          new ToolMessage({
            tool_call_id: id,
            name: "inventory_report",
            content: `Inventory page ${call}:\n${"row: crate, aisle, pallets, status ok\n".repeat(120)}`,
          }),
          new AIMessage(`Page ${call} of the inventory is clean.`),
        ],
      };
    })
    .addEdge(START, "agent")
    .compile({ checkpointer: saver });
}

export async function turns(
  graph: { invoke(input: unknown, config: unknown): Promise<unknown> },
  from: number,
  to: number,
): Promise<void> {
  for (let turn = from; turn < to; turn++) await graph.invoke({ messages: [new HumanMessage(question(turn))] }, config);
}

export async function checkpointCount(saver: BaseCheckpointSaver): Promise<number> {
  let count = 0;
  for await (const _ of saver.list({ configurable: { thread_id: THREAD, checkpoint_ns: "" } })) count++;
  return count;
}

export async function headTuple(saver: BaseCheckpointSaver): Promise<CheckpointTuple> {
  const tuple = await saver.getTuple({ configurable: { thread_id: THREAD, checkpoint_ns: "" } });
  if (!tuple) throw new Error(`thread ${THREAD} has no checkpoint`);
  return tuple;
}

export async function headMessages(saver: BaseCheckpointSaver): Promise<BaseMessage[]> {
  return (await threadStoreFor(saver).readHead(THREAD))?.messages ?? [];
}

/** Nothing lost: every message ever stored is in the head or covered by a summary, and the head is valid. */
export async function expectNothingLost(saver: BaseCheckpointSaver): Promise<void> {
  const audit = await auditThread(saver, config);
  vitestApi()
    .expect(audit.problems, JSON.stringify(audit.problems.slice(0, 3)))
    .toEqual([]);
  vitestApi()
    .expect(audit.inHead + audit.covered)
    .toBe(audit.messagesEver);
}
