/**
 * A head is idle only when no run is in it. A run's first checkpoint (source "input") holds its input in `__start__`
 * before any step ran: until its first step saves writes, nothing else says a run is in it, and a compaction written
 * on it then would be superseded by the run's next checkpoint. The checkpoint a turn ends on is idle.
 */
import { HumanMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { describe, expect, it } from "vitest";
import { pendingNodes, readThreadHead } from "../../src/store/read-head.js";
import { createTestAgent } from "../support/agents.js";

describe("readThreadHead's busy reason", () => {
  it("holds a run's input checkpoint busy until its first step, and the end of a turn idle", async () => {
    const saver = SqliteSaver.fromConnString(":memory:");
    const { agent } = createTestAgent(saver);
    for (const turn of [0, 1])
      await agent.invoke(
        { messages: [new HumanMessage({ id: `ask-${turn}`, content: `Question ${turn}` })] },
        { configurable: { thread_id: "t" } },
      );
    const bySource = new Map<string, string[]>();
    for await (const tuple of saver.list({ configurable: { thread_id: "t" } })) {
      const source = String(tuple.metadata?.source);
      bySource.set(source, [...(bySource.get(source) ?? []), tuple.checkpoint.id]);
    }
    expect(bySource.get("input")).toHaveLength(2);
    for (const id of bySource.get("input")!) {
      const head = await readThreadHead(saver, "t", id);
      // As the head was before its first step saved its writes.
      expect(pendingNodes({ ...head!.tuple, pendingWrites: [] })).toEqual(["__start__"]);
      expect(head?.busyKind).toBe("run");
    }
    expect((await readThreadHead(saver, "t"))?.busyReason).toBeUndefined();
  });
});
