/**
 * The Postgres backend reads a checkpoint with its blobs and pending writes as rows of their own
 * (store/read-tuple-postgres.ts): the tuple is the one PostgresSaver's getTuple returns, for every checkpoint of a
 * thread that ran a graph with a subgraph, several channels, and a pause at an interrupt (its pending writes).
 */
import { HumanMessage } from "@langchain/core/messages";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { afterAll, beforeAll, expect, it } from "vitest";
import { readPostgresTuple } from "../../src/store/read-tuple-postgres.js";
import type { PostgresSaverInternals } from "../../src/store/swap-postgres.js";
import { createCustomGraph } from "../support/custom-graph.js";
import { createStore, type TestStore } from "../support/savers.js";

let store: TestStore;
beforeAll(async () => {
  store = await createStore("postgres");
});
afterAll(() => store.close());

it("reads every checkpoint of a thread as getTuple does, pending writes and parents included", async () => {
  const saver = store.saver as PostgresSaver;
  const graph = createCustomGraph(saver);
  const config = { configurable: { thread_id: "t" } };
  await graph.invoke({ messages: [new HumanMessage({ id: "ask-1", content: "Plan the Lyon shipment" })] }, config);
  await graph.invoke({ messages: [new HumanMessage({ id: "ask-2", content: "Please approve the refund" })] }, config);
  const ids: string[] = [];
  for await (const tuple of saver.list({ configurable: { thread_id: "t", checkpoint_ns: "" } }))
    ids.push(tuple.checkpoint.id);
  expect(ids.length).toBeGreaterThan(4);
  const internals = saver as unknown as PostgresSaverInternals;
  const head = await readPostgresTuple(internals, "t");
  expect(head?.checkpoint.id).toBe(ids[0]);
  // Paused at the interrupt: the head's pending writes say so.
  expect(head?.pendingWrites?.some(([, channel]) => channel === "__interrupt__")).toBe(true);
  for (const id of ids) {
    const expected = await saver.getTuple({ configurable: { thread_id: "t", checkpoint_ns: "", checkpoint_id: id } });
    const read = await readPostgresTuple(internals, "t", id);
    expect(JSON.parse(JSON.stringify(read))).toEqual(JSON.parse(JSON.stringify(expected)));
  }
  expect(await readPostgresTuple(internals, "t", "no-such-checkpoint")).toBeUndefined();
  expect(await readPostgresTuple(internals, "nobody")).toBeUndefined();
});
