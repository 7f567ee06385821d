/**
 * The wrapper keeps nothing alive: a process that compacted through it with the defaults exits on its own after
 * flush() (no timer, no worker left behind), and the store holds a valid thread. The `workers` option is gone:
 * compactions run on the application's thread, in phases that let its event loop turn over (src/slices.ts).
 */
import { MemorySaver } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditThread, CompactingSupervisor } from "../../src/index.js";
import { createTestAgent } from "../support/agents.js";
import { runTs } from "../support/run-script.js";

let dir: string;
beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), "compaction-exit-"))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a process that used the wrapper", () => {
  it("exits on its own after flush(), its compactions landed and nothing lost", async () => {
    const path = join(dir, "exit.sqlite");
    // The child never closes anything: anything that kept the process alive would hang it (and fail this test).
    const run = await runTs("test/support/exit-child.ts", [path, "exit", "200"]);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as {
      compactions: number;
      errors: string[];
      sawSummary: boolean;
    };
    expect(result.errors).toEqual([]);
    expect(result.compactions).toBeGreaterThan(0);
    expect(result.sawSummary).toBe(true);
    const saver = SqliteSaver.fromConnString(path);
    const audit = await auditThread(saver, { configurable: { thread_id: "exit" } });
    expect(audit.problems).toEqual([]);
    saver.db.close();
  });

  it("refuses the removed `workers` option as an option it does not know", () => {
    const { agent: graph } = createTestAgent(new MemorySaver());
    expect(
      () => new CompactingSupervisor(graph, { trigger: { tokens: 1_000 }, env: {}, ...({ workers: false } as object) }),
    ).toThrow(
      expect.objectContaining({
        code: "INVALID_ARGUMENT",
        parameter: "workers",
        message: expect.stringContaining('no option "workers" in CompactingSupervisor'),
      }),
    );
  });
});
