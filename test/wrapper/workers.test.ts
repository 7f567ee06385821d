/**
 * Compactions in the library's worker threads: with the defaults on a SQLite file the wrapper compacts in a worker
 * (the application's thread does not read, summarize or write the thread), and a process that used it exits on its
 * own after flush(); a worker that dies fails its compaction with WORKER_FAILED, writes nothing, and the next
 * compaction gets a new worker; where the engine cannot cross to a worker, compaction stays on the application's thread.
 */
import { MemorySaver } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import type { Worker } from "node:worker_threads";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditThread, CompactingSupervisor } from "../../src/index.js";
import { resolvePolicy } from "../../src/engine/policy.js";
import { CompactionWorkers } from "../../src/runtimes/offload/worker-pool.js";
import { summaryRunner } from "../../src/runtimes/wrapper/summary-runner.js";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { CompactionError } from "../../src/errors.js";
import { isSummaryMessage } from "../../src/messages/summary-message.js";
import { createTestAgent, seedThread } from "../support/agents.js";
import { createStore } from "../support/savers.js";
import { runTs } from "../support/run-script.js";

let dir: string;
beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), "compaction-workers-"))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("compaction workers", () => {
  it("the wrapper compacts in a worker with the defaults, nothing lost, and the process exits on its own after flush()", async () => {
    const path = join(dir, "exit.sqlite");
    // The child never closes anything: a worker that kept the process alive would hang it (and fail this test).
    const run = await runTs("test/support/worker-exit-child.ts", [path, "exit", "200"]);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as { workers: number; compactions: number; errors: string[]; sawSummary: boolean };
    expect(result.errors).toEqual([]);
    expect(result.workers).toBe(1);
    expect(result.compactions).toBeGreaterThan(0);
    expect(result.sawSummary).toBe(true);
    const saver = SqliteSaver.fromConnString(path);
    const audit = await auditThread(saver, { configurable: { thread_id: "exit" } });
    expect(audit.problems).toEqual([]);
    saver.db.close();
  });

  it("compacts a Postgres thread in a worker too (a saver made from a connection string)", async () => {
    const store = await createStore("postgres");
    try {
      const { agent } = createTestAgent(store.saver);
      let compactions = 0;
      const supervisor = new CompactingSupervisor(agent, { tokenLimit: 400, env: {}, onCompaction: () => void compactions++ });
      expect(supervisor.workers).toBe(1);
      let seen = false;
      // Each turn waits for the compaction it started (flush): a signal, not a clock, decides when the next turn runs.
      for (let turn = 0; turn < 40 && !seen; turn++) {
        const result = await supervisor.invoke({ messages: [new HumanMessage({ id: `pg-${turn}`, content: `turn ${turn}: what is the total of invoice ord_${turn}?` })] }, { configurable: { thread_id: "pg" } });
        seen = compactions > 0 && result.messages.some((message) => isSummaryMessage(message));
        await supervisor.flush();
      }
      expect(seen).toBe(true);
      expect((await auditThread(store.saver, { configurable: { thread_id: "pg" } })).problems).toEqual([]);
      await supervisor.close();
    } finally {
      await store.close();
    }
  });

  it("a worker that dies fails its compaction with WORKER_FAILED, writes nothing, and the next one gets a new worker", async () => {
    const path = join(dir, "crash.sqlite");
    const saver = SqliteSaver.fromConnString(path);
    const { agent } = createTestAgent(saver);
    await seedThread(agent, "crash", 12);
    const config = { configurable: { thread_id: "crash", checkpoint_ns: "" } };
    const before = (await saver.getTuple(config))!.checkpoint.id;
    const started: Worker[] = [];
    let killNext = true;
    const workers = new CompactionWorkers(1, ({ kind, worker }) => {
      if (kind === "started") started.push(worker);
      // The first job's worker is ended the moment the job is sent: it dies holding that compaction.
      if (kind === "job" && killNext) {
        killNext = false;
        void worker.terminate();
      }
    });
    const settings = { location: { kind: "sqlite" as const, path }, policy: resolvePolicy({ tokenLimit: 400 }) };
    await expect(workers.prepare(settings, "crash")).rejects.toMatchObject({ code: "WORKER_FAILED" });
    expect((await saver.getTuple(config))!.checkpoint.id).toBe(before);
    const prepared = await workers.prepare(settings, "crash");
    expect(started.length).toBe(2);
    expect(prepared.status).toBe("prepared");
    const report = await workers.apply(prepared as Parameters<typeof workers.apply>[0], 0);
    expect(report.status).toBe("compacted");
    expect((await saver.getTuple(config))!.checkpoint.id).not.toBe(before);
    expect((await auditThread(saver, config)).problems).toEqual([]);
    await workers.close();
    saver.db.close();
  });

  it("a worker that dies after committing its compaction: the outcome is what the store holds (landed), not 'nothing written'", async () => {
    const path = join(dir, "died-after-commit.sqlite");
    const saver = SqliteSaver.fromConnString(path);
    const { agent } = createTestAgent(saver);
    for (const thread of ["landed", "unwritten"]) await seedThread(agent, thread, 12);
    /** The pool as it answers when its worker dies right after the commit, before its answer: WORKER_FAILED. */
    class DiesAfterCommit extends CompactionWorkers {
      override async apply(...args: Parameters<CompactionWorkers["apply"]>): ReturnType<CompactionWorkers["apply"]> {
        const [prepared] = args;
        if (prepared.threadId === "landed") await super.apply(...args);
        throw new CompactionError({ code: "WORKER_FAILED", message: "the compaction worker stopped (exit code 1); nothing was written by the compaction it was running" });
      }
    }
    const workers = new DiesAfterCommit(1);
    const settings = { location: { kind: "sqlite" as const, path }, policy: resolvePolicy({ tokenLimit: 400 }) };
    const manager = new HistoryManager({ checkpointer: saver, policy: settings.policy });
    const runner = summaryRunner(manager, { workers, release: () => workers.close(), settings });
    const landed = await runner.prepare("landed");
    expect(landed.status).toBe("prepared");
    const report = await runner.apply(landed as Parameters<typeof runner.apply>[0], 0);
    expect(report.status).toBe("compacted");
    const head = (await saver.getTuple({ configurable: { thread_id: "landed", checkpoint_ns: "" } }))!;
    expect(report.status === "compacted" && report.newCheckpointId).toBe(head.checkpoint.id);
    expect(isSummaryMessage((head.checkpoint.channel_values.messages as BaseMessage[])[1])).toBe(true);
    // A worker that died before writing: WORKER_FAILED, and indeed nothing written.
    const unwritten = await runner.prepare("unwritten");
    const before = (await saver.getTuple({ configurable: { thread_id: "unwritten", checkpoint_ns: "" } }))!.checkpoint.id;
    await expect(runner.apply(unwritten as Parameters<typeof runner.apply>[0], 0)).rejects.toMatchObject({ code: "WORKER_FAILED" });
    expect((await saver.getTuple({ configurable: { thread_id: "unwritten", checkpoint_ns: "" } }))!.checkpoint.id).toBe(before);
    await workers.close();
    saver.db.close();
  });

  it("where the worker module cannot load (a bundler left it out), compaction runs on the application's thread", async () => {
    const path = join(dir, "missing.sqlite");
    const saver = SqliteSaver.fromConnString(path);
    const { agent } = createTestAgent(saver);
    await seedThread(agent, "missing", 12);
    const workers = new CompactionWorkers(1, undefined, new URL("file:///nonexistent/compaction-worker.mjs"));
    const settings = { location: { kind: "sqlite" as const, path }, policy: resolvePolicy({ tokenLimit: 400 }) };
    await expect(workers.prepare(settings, "missing")).rejects.toMatchObject({ code: "WORKER_FAILED" });
    expect(workers.unavailable).toMatch(/did not load/);
    const manager = new HistoryManager({ checkpointer: saver, policy: settings.policy });
    const runner = summaryRunner(manager, { workers, release: () => workers.close(), settings });
    const ready = await runner.prepare("missing");
    expect(ready.status).toBe("prepared");
    expect((await runner.apply(ready as Parameters<typeof runner.apply>[0], 0)).status).toBe("compacted");
    expect((await auditThread(saver, { configurable: { thread_id: "missing" } })).problems).toEqual([]);
    saver.db.close();
  });

  it("stays on the application's thread where the engine cannot cross to a worker", () => {
    const sqlite = SqliteSaver.fromConnString(join(dir, "stay.sqlite"));
    const memory = createTestAgent(new MemorySaver()).agent;
    const file = createTestAgent(sqlite).agent;
    expect(new CompactingSupervisor(memory, { tokenLimit: 400, env: {} }).workers).toBe(0);
    expect(new CompactingSupervisor(file, { tokenLimit: 400, env: {}, pinned: () => false }).workers).toBe(0);
    expect(new CompactingSupervisor(file, { tokenLimit: 400, env: {}, workers: false }).workers).toBe(0);
    expect(new CompactingSupervisor(file, { tokenLimit: 400, env: {}, workers: 2 }).workers).toBe(2);
    expect(() => new CompactingSupervisor(file, { tokenLimit: 400, env: {}, workers: 0 })).toThrow(/workers/);
    sqlite.db.close();
  });
});
