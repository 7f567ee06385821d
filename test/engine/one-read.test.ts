/**
 * A compaction reads and deserializes the thread once: applying the summary to a head that has not moved probes
 * only the head's id (SQLite and Postgres); a head that moved is read again and the summary rebased onto it.
 */
import { HumanMessage } from "@langchain/core/messages";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { createTestAgent, seedThread } from "../support/agents.js";
import { createStore, type TestStore } from "../support/savers.js";

describe.each(["sqlite", "postgres"] as const)("one read of the head per compaction on %s", (kind) => {
  let store: TestStore;
  beforeEach(async () => void (store = await createStore(kind)));
  afterEach(async () => store.close());

  /** Counts the saver's getTuple calls for the thread's head while `run` runs. */
  async function headReads(run: () => Promise<unknown>): Promise<number> {
    const original = store.saver.getTuple.bind(store.saver);
    let reads = 0;
    store.saver.getTuple = async (config) => {
      if (config.configurable?.checkpoint_id === undefined) reads++;
      return original(config);
    };
    try {
      await run();
    } finally {
      store.saver.getTuple = original;
    }
    return reads;
  }

  it("compactThread on an idle thread reads the head once", async () => {
    const { agent } = createTestAgent(store.saver);
    await seedThread(agent, "idle", 12);
    const manager = new HistoryManager({ checkpointer: store.saver, trigger: { tokens: 400 } });
    let status = "";
    expect(
      await headReads(
        async () => void (status = (await manager.compactThread({ configurable: { thread_id: "idle" } })).status),
      ),
    ).toBe(1);
    expect(status).toBe("compacted");
  });

  it("a head that moved after the summary is read again and the summary rebased onto it", async () => {
    const { agent } = createTestAgent(store.saver);
    await seedThread(agent, "moved", 12);
    const manager = new HistoryManager({ checkpointer: store.saver, trigger: { tokens: 400 } });
    const prepared = await manager.prepareCompaction({ configurable: { thread_id: "moved" } });
    expect(prepared.status).toBe("prepared");
    if (prepared.status !== "prepared") return;
    await agent.invoke(
      { messages: [new HumanMessage({ id: "late", content: "one more question" })] },
      { configurable: { thread_id: "moved" } },
    );
    let report: Awaited<ReturnType<HistoryManager["applyCompaction"]>> | undefined;
    expect(await headReads(async () => void (report = await manager.applyCompaction(prepared)))).toBe(1);
    expect(report?.status).toBe("compacted");
    expect(report?.status === "compacted" && report.rebased?.appendedMessages).toBe(2);
  });
});
