/**
 * A write of this library that a run superseded (the run had read the thread before it and wrote from its parent):
 * deleted while nothing descends from it, kept once a run started from it; a write still in the head's line stays.
 */
import { HumanMessage } from "@langchain/core/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditThread } from "../../src/engine/audit.js";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { settleWrite } from "../../src/engine/superseded-write.js";
import { threadStoreFor } from "../../src/store/thread-store.js";
import { createTestAgent, seedTurns } from "../support/agents.js";
import { createStore, SAVER_KINDS, type TestStore } from "../support/savers.js";

const ask = (id: string) => ({ messages: [new HumanMessage({ id, content: `Question ${id}: the invoice total?` })] });

for (const kind of SAVER_KINDS) {
  describe(`settleWrite (${kind})`, () => {
    let store: TestStore;
    beforeAll(async () => void (store = await createStore(kind)));
    afterAll(async () => await store.close());

    /** A thread compacted once: the compaction's id and the head it was written on. */
    async function compacted(thread: string) {
      const { agent } = createTestAgent(store.saver);
      await seedTurns(agent, thread, 30);
      const report = await new HistoryManager({
        checkpointer: store.saver,
        trigger: { tokens: 1_500 },
        env: {},
      }).compactThread({
        configurable: { thread_id: thread },
      });
      if (report.status !== "compacted") throw new Error(`not compacted: ${report.reason}`);
      return { agent, written: report.newCheckpointId, parent: report.previousCheckpointId! };
    }
    const ids = async (thread: string) => {
      const found: string[] = [];
      for await (const tuple of store.saver.list({ configurable: { thread_id: thread } }))
        found.push(tuple.checkpoint.id);
      return found;
    };

    it("keeps a write in the head's line, and deletes one a run superseded", async () => {
      const { agent, written, parent } = await compacted("line");
      await agent.invoke(ask("next"), { configurable: { thread_id: "line" } });
      expect(await settleWrite(threadStoreFor(store.saver), "line", written)).toEqual({ fate: "in line" });
      const { written: late, parent: lateParent } = await compacted("late");
      await agent.invoke(ask("raced"), { configurable: { thread_id: "late", checkpoint_id: lateParent } });
      expect(await settleWrite(threadStoreFor(store.saver), "late", late)).toEqual({
        fate: "superseded",
        removed: true,
      });
      expect(await ids("late")).not.toContain(late);
      expect(await ids("line")).toContain(parent);
      expect((await auditThread(store.saver, { configurable: { thread_id: "late" } })).problems).toEqual([]);
    });

    it("keeps a superseded write that a run started from", async () => {
      const { agent, written, parent } = await compacted("forked");
      await agent.invoke(ask("from-the-write"), { configurable: { thread_id: "forked", checkpoint_id: written } });
      await agent.invoke(ask("from-the-parent"), { configurable: { thread_id: "forked", checkpoint_id: parent } });
      expect(await settleWrite(threadStoreFor(store.saver), "forked", written)).toEqual({
        fate: "superseded",
        removed: false,
      });
      expect(await ids("forked")).toContain(written);
    });
  });
}
