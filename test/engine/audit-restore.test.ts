/**
 * The library's own restore drops the messages that came after the checkpoint it brings back, and records them in
 * the recall index in the same transaction: auditThread counts them as recorded, never as lost, and search finds
 * every one of them.
 */
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { auditThread, HistoryManager, searchHistory } from "../../src/index.js";
import { main } from "../../src/cli/main.js";
import { createTestAgent, runTurns, seedThread } from "../support/agents.js";

const dir = mkdtempSync(join(tmpdir(), "compaction-audit-restore-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("auditThread after the library's restore", () => {
  it("counts what the restore dropped as recorded, not LOST_MESSAGE, and search finds it", async () => {
    const path = join(dir, "store.sqlite");
    const saver = SqliteSaver.fromConnString(path);
    const config = { configurable: { thread_id: "restored" } };
    const { agent } = createTestAgent(saver);
    await seedThread(agent, "restored", 12);
    await new HistoryManager({ checkpointer: saver, trigger: { tokens: 400 } }).compactThread(config);
    const back = (await saver.getTuple(config))!.checkpoint.id;
    await runTurns(agent, "restored", 4, { from: 12, prefix: "dropped" });
    const dropped = ((await agent.getState(config)).values.messages as Array<{ id?: string; content: unknown }>).filter(
      (message) => message.id!.startsWith("dropped-"),
    );
    expect(dropped).toHaveLength(4);

    const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    const code = await main(["restore", "restored", "--checkpoint", back, "--db", path], {}).finally(() =>
      out.mockRestore(),
    );
    expect(code).toBe(0);

    const audit = await auditThread(saver, config);
    expect(audit.problems).toEqual([]);
    expect(audit.recorded).toBeGreaterThanOrEqual(dropped.length);
    expect(audit.inHead + audit.covered + audit.recorded).toBe(audit.messagesEver);
    for (const message of dropped) {
      const hits = await searchHistory(saver, config, String(message.content), { limit: 5 });
      expect(hits.map((hit) => hit.messageId)).toContain(message.id);
    }
    saver.db.close();
  });
});
