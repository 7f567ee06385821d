/**
 * A failed first write does not leave the SQLite recall index "created" for the connection: the index's tables are
 * created outside the write's transaction, so the rollback of that write (here a statement made to fail once, as a
 * full disk would) leaves them in place, and the connection's next compaction or prune works.
 */
import { RemoveMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { afterEach, beforeEach, expect, it } from "vitest";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { readTranscript } from "../../src/recall/transcript.js";
import { createTestAgent, runTurns } from "../support/agents.js";
import { createStore, type TestStore } from "../support/savers.js";

let store: TestStore;
beforeEach(async () => void (store = await createStore("sqlite")));
afterEach(async () => await store.close());

it("a prune whose transaction fails after backfilling the transcript leaves the connection able to prune and compact", async () => {
  const saver = store.saver as SqliteSaver;
  const { agent } = createTestAgent(saver);
  const config = { configurable: { thread_id: "fails-once" } };
  await runTurns(agent, "fails-once", 8);
  // A message the application removed: the prune must write it to the transcript before deleting its checkpoints.
  const removed = (await agent.getState(config)).values.messages[1]!;
  await agent.updateState(config, { messages: [new RemoveMessage({ id: removed.id! })] });
  expect(saver.db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'compaction_recall'`).get()).toBeUndefined();

  // The first DELETE of a checkpoint fails once, inside the prune's transaction, after the transcript was written.
  let failures = 0;
  saver.db.function("fail_once", () => {
    if (failures++ === 0) throw new Error("disk I/O error");
    return 0;
  });
  saver.db.exec(`CREATE TRIGGER fail_first_delete BEFORE DELETE ON checkpoints BEGIN SELECT fail_once(); END`);

  const manager = new HistoryManager({ checkpointer: saver, trigger: { tokens: 450 }, env: {} });
  await expect(manager.pruneThread(config, { keep: 1 })).rejects.toThrow(/disk I\/O error/);
  // The same connection: the prune is retried and lands, then a compaction.
  const pruned = await manager.pruneThread(config, { keep: 1 });
  expect(pruned.removed).toBeGreaterThan(0);
  const compacted = await manager.compactThread(config);
  expect(compacted.status, compacted.reason).toBe("compacted");
  const transcript = await readTranscript(saver, config, { limit: 1_000 });
  expect(transcript.messages.some((line) => line.message.id === removed.id)).toBe(true);
});
