/**
 * The script's search and reindex commands on a SQLite file and on Postgres: hits as text and as JSON, --hits,
 * the script's exit codes for bad arguments and unknown threads, and a reindex that rebuilds a dropped index.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { afterEach, describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main.js";
import { EXIT } from "../../src/cli/exit-codes.js";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { threadStoreFor } from "../../src/store/thread-store.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import { createTestAgent, runTurns } from "../support/agents.js";
import { createStore, type SaverKind, type TestStore } from "../support/savers.js";

/** Runs the script in this process; returns its exit code and what it printed. */
async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const spies = [
    vi.spyOn(process.stdout, "write").mockImplementation((chunk) => (out.push(String(chunk)), true)),
    vi.spyOn(process.stderr, "write").mockImplementation((chunk) => (err.push(String(chunk)), true)),
  ];
  try {
    const code = await main(args, {});
    return { code, stdout: out.join(""), stderr: err.join("") };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

/** Empties the recall index of `threadId` (as a store written before the index existed would be). */
async function dropIndex(saver: BaseCheckpointSaver, threadId: string): Promise<void> {
  await threadStoreFor(saver).recall.replaceThread(threadId, []);
}

describe.each(["sqlite", "postgres"] as SaverKind[])("compact-thread search and reindex (%s)", (kind) => {
  let store: TestStore;
  afterEach(async () => store?.close());

  async function compacted(threads: string[]): Promise<string[]> {
    store = await createStore(kind);
    const { agent } = createTestAgent(store.saver);
    const manager = new HistoryManager({ checkpointer: store.saver, summarizer: new ExtractiveSummarizer() });
    for (const thread of threads) {
      await runTurns(agent, thread, 9);
      expect(
        (await manager.compactThread({ configurable: { thread_id: thread } }, { compactionRatio: 0.5 })).status,
      ).toBe("compacted");
    }
    const { path, url, schema } = store.location;
    return path ? ["--db", path] : ["--postgres", url!, "--schema", schema!];
  }

  it("prints the hits as text and as JSON, within --hits", async () => {
    const location = await compacted(["ops"]);
    const text = await run(["search", "ops", "invoice", "total", "ord_1001", ...location]);
    expect(text.code, text.stderr).toBe(EXIT.ok);
    expect(text.stdout).toContain("turn 1: the invoice total for order ord_1001 is 17 EUR, decided by Alice Moreau.");
    expect(text.stdout).toMatch(/^1\. .+\(score [\d.]+\)\n {3}.+\n {3}message \S+ · checkpoint \S+$/m);

    const json = await run([
      "search",
      "ops",
      "Who decided the invoice total for ord_1001?",
      ...location,
      "--json",
      "--hits",
      "2",
    ]);
    expect(json.code, json.stderr).toBe(EXIT.ok);
    const parsed = JSON.parse(json.stdout) as {
      threadId: string;
      hits: Array<{ messageId: string; text: string; checkpointId: string; before: unknown[]; after: unknown[] }>;
    };
    expect(parsed.threadId).toBe("ops");
    expect(parsed.hits.length).toBeGreaterThan(0);
    expect(parsed.hits.length).toBeLessThanOrEqual(2);
    expect(parsed.hits.map((hit) => hit.messageId)).toContain("turn-ops-1");
  });

  it("exits 2 on bad arguments and 5 on an unknown thread", async () => {
    const location = await compacted(["ops"]);
    expect((await run(["search", "ops", ...location])).code).toBe(EXIT.usage);
    expect((await run(["search", "ops", "?!", ...location])).code).toBe(EXIT.usage);
    expect((await run(["search", "ops", "invoice", "--hits", "0", ...location])).code).toBe(EXIT.usage);
    expect((await run(["search", "ops", "invoice", "--hits", "101", ...location])).code).toBe(EXIT.usage);
    expect((await run(["search", "nobody", "invoice", ...location])).code).toBe(EXIT.threadNotFound);
    expect((await run(["reindex", ...location])).code).toBe(EXIT.usage);
    expect((await run(["reindex", "ops", "--all", ...location])).code).toBe(EXIT.usage);
    expect((await run(["reindex", "nobody", ...location])).code).toBe(EXIT.threadNotFound);
  });

  it("rebuilds a missing index with reindex, for one thread or all, idempotently", async () => {
    const location = await compacted(["ops", "billing"]);
    const backend = threadStoreFor(store.saver).recall;
    const live = { ops: await backend.entries("ops"), billing: await backend.entries("billing") };
    expect(live.ops.length).toBeGreaterThan(0);
    for (const thread of ["ops", "billing"]) await dropIndex(store.saver, thread);
    expect(
      JSON.parse((await run(["search", "ops", "invoice", "ord_1001", ...location, "--json"])).stdout).hits,
    ).toEqual([]);

    const one = await run(["reindex", "ops", ...location, "--json"]);
    expect(one.code, one.stderr).toBe(EXIT.ok);
    expect(JSON.parse(one.stdout).threads).toEqual([
      expect.objectContaining({ threadId: "ops", indexed: live.ops.length }),
    ]);
    expect(await backend.entries("ops")).toEqual(live.ops);
    expect(await backend.entries("billing")).toEqual([]);

    const all = await run(["reindex", "--all", ...location]);
    expect(all.code, all.stderr).toBe(EXIT.ok);
    expect(all.stdout).toContain("2 thread(s) reindexed");
    expect(await backend.entries("ops")).toEqual(live.ops);
    expect(await backend.entries("billing")).toEqual(live.billing);
    const hits = JSON.parse((await run(["search", "billing", "invoice", "ord_1001", ...location, "--json"])).stdout)
      .hits as Array<{ messageId: string }>;
    expect(hits.map((hit) => hit.messageId)).toContain("turn-billing-1");
  });
});
