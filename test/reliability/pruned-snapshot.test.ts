/**
 * Part of the race suite (test:reliability). A prune beside a compaction in flight: the wrapper's compaction worker summarizes the checkpoint a turn ended on,
 * which a prune (keepCheckpoints, or the script's prune on a schedule) may delete before the worker reads it. That
 * is a retry on the head as it is now, not a CHECKPOINT_NOT_FOUND failure the circuit breaker counts.
 */
import { HumanMessage } from "@langchain/core/messages";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CompactionError } from "../../src/errors.js";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { ScriptedChatModel } from "../../src/testing/scripted-chat-model.js";
import { createTestAgent, lookupPolicy, lookupTool, runTurns } from "../support/agents.js";
import { recordFigures, size } from "../support/reliability.js";
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
      const manager = new HistoryManager({ checkpointer: store.saver, trigger: { tokens: 1_000 }, env: {} });
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
      const supervisor = new CompactingSupervisor(agent, {
        trigger: { tokens: 1_200 },
        keepCheckpoints: 1,
        env: {},
        onCompaction: (report) => void (report.status === "compacted" && landed++),
        onCompactionError: (error) => void errors.push(error),
      });
      for (let turn = 0; turn < 40; turn++) {
        await supervisor.invoke(
          {
            messages: [
              new HumanMessage(
                `turn ${turn}: the invoice total for order ord_${1000 + turn} is ${turn * 17} EUR, decided by Alice Moreau.`,
              ),
            ],
          },
          { configurable: { thread_id: "kept" } },
        );
      }
      await supervisor.close();
      expect(errors).toEqual([]);
      expect(landed).toBeGreaterThan(0);
    });

    it("the script's prune on a schedule beside threads of turns and their background compactions: 0 CHECKPOINT_NOT_FOUND, 0 pauses", async () => {
      const threads = size("PRUNE_RACE_THREADS", 3, 6);
      const turns = size("PRUNE_RACE_TURNS", 36, 40);
      const model = new ScriptedChatModel({ reply: lookupPolicy, latencyMs: 20 });
      const agent = createReactAgent({ llm: model, tools: [lookupTool], checkpointer: store.saver });
      const errors: unknown[] = [];
      let landed = 0;
      const supervisor = new CompactingSupervisor(agent, {
        trigger: { tokens: 1_200 },
        env: {},
        onCompaction: (report) => void (report.status === "compacted" && landed++),
        onCompactionError: (error) => void errors.push(error),
      });
      // Another process's prune: its own HistoryManager on the same store, pruning every thread to its head, in a loop.
      const pruner = new HistoryManager({ checkpointer: store.saver, trigger: { tokens: 1_200 }, env: {} });
      let running = true;
      let prunes = 0;
      const pruning = (async () => {
        while (running) {
          for (let thread = 0; thread < threads && running; thread++) {
            await pruner.pruneThread({ configurable: { thread_id: `scheduled-${thread}` } }, { keep: 1 }).then(
              () => void prunes++,
              (error: unknown) => {
                // A thread with no checkpoint yet, or a head that moved under the prune: the next pass prunes it.
                if (
                  !CompactionError.isInstance(error) ||
                  !["THREAD_NOT_FOUND", "WRITE_CONFLICT", "THREAD_BUSY"].includes(error.code)
                )
                  throw error;
              },
            );
          }
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      await Promise.all(
        Array.from({ length: threads }, async (_, thread) => {
          for (let turn = 0; turn < turns; turn++) {
            await supervisor.invoke(
              {
                messages: [
                  new HumanMessage(
                    `turn ${turn}: the invoice total for order ord_${1000 + turn} is ${turn * 17} EUR, decided by Alice Moreau.`,
                  ),
                ],
              },
              { configurable: { thread_id: `scheduled-${thread}` } },
            );
          }
        }),
      );
      await supervisor.close();
      running = false;
      await pruning;
      const code = (error: unknown) => (CompactionError.isInstance(error) ? error.code : String(error));
      recordFigures(`pruned-snapshot-${kind}`, { threads, turns, prunes, landed, errors: errors.map(code) });
      expect(errors.filter((error) => code(error) === "CHECKPOINT_NOT_FOUND")).toEqual([]);
      expect(errors.filter((error) => code(error) === "COMPACTION_PAUSED")).toEqual([]);
      expect(errors.map(code)).toEqual([]);
      expect(prunes).toBeGreaterThan(0);
      expect(landed).toBeGreaterThanOrEqual(threads);
    });
  });
}
