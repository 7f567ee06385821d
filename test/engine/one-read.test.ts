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

  /**
   * Counts the reads of the thread's head while `run` runs: the saver's getTuple calls for it (SQLite); on Postgres,
   * where the store reads a checkpoint's rows itself (store/read-tuple-postgres.ts), the checkpoints PostgresSaver's
   * own code loads, whichever way they were read.
   */
  async function headReads(run: () => Promise<unknown>): Promise<number> {
    let reads = 0;
    const saver = store.saver as unknown as Record<string, (...args: never[]) => unknown>;
    const method = kind === "postgres" ? "_loadCheckpoint" : "getTuple";
    const original = saver[method]!;
    saver[method] = function (this: unknown, ...args: never[]) {
      const config = args[0] as { configurable?: { checkpoint_id?: string } } | undefined;
      if (kind === "postgres" || config?.configurable?.checkpoint_id === undefined) reads++;
      return original.apply(this, args);
    };
    try {
      await run();
    } finally {
      saver[method] = original;
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
