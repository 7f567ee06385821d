/**
 * Part of the race suite (test:reliability). A prune beside a compaction in flight: the wrapper's compaction worker summarizes the checkpoint a turn ended on,
 * which a prune (keepCheckpoints, or the script's prune on a schedule) may delete before the worker reads it. That
 * is a retry on the head as it is now, not a CHECKPOINT_NOT_FOUND failure the circuit breaker counts.
 */
import { HumanMessage } from "@langchain/core/messages";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { createTestAgent, runTurns } from "../support/agents.js";
import { createStore, SAVER_KINDS, type TestStore } from "../support/savers.js";

for (const kind of SAVER_KINDS.filter((saver) => saver !== "memory")) {
  describe(`a summary of a pruned checkpoint (${kind})`, () => {
    let store: TestStore;
    beforeEach(async () => void (store = await createStore(kind)));
    afterEach(async () => await store.close());

    it("prepareCompaction at a checkpoint a prune deleted summarizes the head instead (orHead), and lands", async () => {
      const { agent } = createTestAgent(store.saver);
      const config = { configurable: { thread_id: "pruned" } };
      await runTurns(agent, "pruned", 20);
      const manager = new HistoryManager({ checkpointer: store.saver, tokenLimit: 1_000, env: {} });
      const turnEnded = await manager.store.readHeadId("pruned");
      await runTurns(agent, "pruned", 2, { from: 20 });
      const pruned = await manager.pruneThread(config, { keep: 1 });
      expect(pruned.removed).toBeGreaterThan(0);
      const at = { configurable: { thread_id: "pruned", checkpoint_id: turnEnded } };
      await expect(manager.prepareCompaction(at)).rejects.toMatchObject({ code: "CHECKPOINT_NOT_FOUND" });
      const prepared = await manager.prepareCompaction(at, { orHead: true });
      expect(prepared.status).toBe("prepared");
      if (prepared.status !== "prepared") return;
      expect(prepared.snapshotCheckpointId).toBe(await manager.store.readHeadId("pruned"));
      expect((await manager.applyCompaction(prepared)).status).toBe("compacted");
    });

    it("keepCheckpoints: 1 beside back-to-back turns: every compaction lands or is skipped, none fails", async () => {
      const { agent } = createTestAgent(store.saver);
      const errors: unknown[] = [];
      let landed = 0;
      const supervisor = new CompactingSupervisor(agent, { tokenLimit: 1_200, keepCheckpoints: 1, env: {}, onCompaction: () => void landed++, onCompactionError: (error) => void errors.push(error) });
      for (let turn = 0; turn < 40; turn++) {
        await supervisor.invoke({ messages: [new HumanMessage(`turn ${turn}: the invoice total for order ord_${1000 + turn} is ${turn * 17} EUR, decided by Alice Moreau.`)] }, { configurable: { thread_id: "kept" } });
      }
      await supervisor.close();
      expect(errors).toEqual([]);
      expect(landed).toBeGreaterThan(0);
    });
  });
}
