/**
 * CompactionWorker (jobs on pg-boss in a real Postgres) and compactThreads over real savers: a sweep sends a job for
 * each thread whose head changed, the jobs compact the idle threads over the limit and lose nothing, a sweep with
 * nothing changed sends none; a compaction a run superseded is found from the store and deleted; a thread not idle
 * yet waits; start() runs jobs until stop(); a SQLite store is refused by name; bad options are refused as the
 * wrapper refuses them. Four worker processes with kills: test/worker/fleet.test.ts.
 */
import { HumanMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditThread } from "../../src/engine/audit.js";
import { readTranscript } from "../../src/recall/transcript.js";
import { CompactionWorker, type ThreadOutcome } from "../../src/runtimes/worker/compaction-worker.js";
import { compactThreads } from "../../src/runtimes/worker/compact-threads.js";
import { createTestAgent, runTurns, seedTurns } from "../support/agents.js";
import { createStore, type SaverKind, type TestStore } from "../support/savers.js";

const LIMIT = 1_500;
const config = (thread: string) => ({ configurable: { thread_id: thread } });

/** Twelve threads: the four "big-*" ones grown over the limit, the eight "small-*" ones under it. */
async function seed(saver: BaseCheckpointSaver): Promise<{ big: string[]; small: string[] }> {
  const { agent } = createTestAgent(saver);
  const big = ["big-a", "big-b", "big-c", "big-d"];
  const small = Array.from({ length: 8 }, (_, index) => `small-${index}`);
  for (const thread of big) await seedTurns(agent, thread, 30);
  for (const thread of small) await seedTurns(agent, thread, 2);
  return { big, small };
}

/** A store of `kind` seeded with the twelve threads, for one describe block (opened before, closed after it). */
function seededStore(kind: SaverKind): { store: TestStore; threads: { big: string[]; small: string[] } } {
  const seeded = {} as { store: TestStore; threads: { big: string[]; small: string[] } };
  beforeAll(async () => {
    seeded.store = await createStore(kind);
    seeded.threads = await seed(seeded.store.saver);
  });
  afterAll(async () => await seeded.store.close());
  return seeded;
}

async function expectNothingLost(saver: BaseCheckpointSaver, threads: readonly string[]): Promise<void> {
  for (const thread of threads) {
    const audit = await auditThread(saver, config(thread));
    expect(audit.problems, `${thread}: ${JSON.stringify(audit.problems.slice(0, 2))}`).toEqual([]);
  }
}

{
  const kind = "postgres";
  describe("CompactionWorker (Postgres, pg-boss)", () => {
    const seeded = seededStore(kind);

    it("compacts the idle threads over the limit once, then reads only the heads that changed", async () => {
      const { store, threads } = seeded;
      const outcomes: ThreadOutcome[] = [];
      const worker = new CompactionWorker(store.saver, {
        trigger: { tokens: LIMIT },
        idleMs: 0,
        env: {},
        onOutcome: (outcome) => void outcomes.push(outcome),
      });
      const first = await worker.runOnce();
      // A job per thread, each counting its head once; the four over the limit compacted.
      expect(first).toMatchObject({ changed: 12, jobs: 12, compacted: 4, skipped: 8, failed: 0 });
      expect(
        outcomes
          .filter((outcome) => outcome.status === "compacted")
          .map((outcome) => outcome.threadId)
          .sort(),
      ).toEqual(threads.big);
      for (const outcome of outcomes) expect(outcome.tokensAfter ?? outcome.tokensBefore!).toBeLessThanOrEqual(LIMIT);
      await expectNothingLost(store.saver, [...threads.big, ...threads.small]);
      // The worker knows the heads it wrote: with nothing changed, the next sweep sends no job.
      expect(await worker.runOnce()).toMatchObject({ changed: 0, jobs: 0 });
      // A thread that grows gets a job again, and is compacted when it is over the limit again.
      await runTurns(createTestAgent(store.saver).agent, "big-a", 14, { from: 30 });
      expect(await worker.runOnce()).toMatchObject({ changed: 1, jobs: 1, compacted: 1 });
      expect(await worker.runOnce()).toMatchObject({ changed: 0, jobs: 0 });
      expect(worker.stats()).toMatchObject({
        sweeps: 4,
        jobs: 13,
        compacted: 5,
        superseded: 0,
        errors: 0,
        skipped: { "under limit": 8 },
      });
      await worker.stop();
      await expectNothingLost(store.saver, ["big-a"]);
    });

    it("reports a compaction a run superseded, and deletes its checkpoint", async () => {
      const { store } = seeded;
      const thread = `superseded-${kind}`;
      const { agent } = createTestAgent(store.saver);
      await seedTurns(agent, thread, 30);
      const head = (await store.saver.getTuple(config(thread)))!.checkpoint.id;
      const outcomes: ThreadOutcome[] = [];
      const worker = new CompactionWorker(store.saver, {
        trigger: { tokens: LIMIT },
        idleMs: 0,
        env: {},
        onOutcome: (outcome) => void outcomes.push(outcome),
      });
      await worker.runOnce();
      const written = outcomes.find(
        (outcome) => outcome.threadId === thread && outcome.status === "compacted",
      )!.checkpointId!;
      // A run that had read the thread before the compaction was written: its turn descends from the old head.
      await agent.invoke(
        { messages: [new HumanMessage({ id: `late-${kind}`, content: "One more question about the invoice." })] },
        { configurable: { thread_id: thread, checkpoint_id: head } },
      );
      const pass = await worker.runOnce();
      expect(pass.superseded).toBe(1);
      expect(outcomes.filter((outcome) => outcome.threadId === thread && outcome.status === "superseded")).toEqual([
        expect.objectContaining({
          checkpointId: written,
          reason: expect.stringContaining("its checkpoint was deleted"),
        }),
      ]);
      expect(worker.stats().superseded).toBe(1);
      const stored: string[] = [];
      for await (const tuple of store.saver.list(config(thread))) stored.push(tuple.checkpoint.id);
      expect(stored).not.toContain(written);
      // The run's head was compacted in the same pass; the thread holds every message, nothing was lost.
      expect(pass.compacted).toBeGreaterThanOrEqual(1);
      await expectNothingLost(store.saver, [thread]);
      // A compaction the next turn builds on stays a compaction.
      await runTurns(agent, thread, 1, { from: 40 });
      expect((await worker.runOnce()).superseded).toBe(0);
      expect(worker.stats().superseded).toBe(1);
      await worker.stop();
    });

    it("finds a compaction superseded while its worker was gone: a new worker reports it from the store and deletes it", async () => {
      const { store } = seeded;
      const thread = `superseded-restart-${kind}`;
      const { agent } = createTestAgent(store.saver);
      await seedTurns(agent, thread, 30);
      const head = (await store.saver.getTuple(config(thread)))!.checkpoint.id;
      const first: ThreadOutcome[] = [];
      const gone = new CompactionWorker(store.saver, {
        trigger: { tokens: LIMIT },
        idleMs: 0,
        env: {},
        onOutcome: (outcome) => void first.push(outcome),
      });
      await gone.runOnce();
      await gone.stop();
      const written = first.find(
        (outcome) => outcome.threadId === thread && outcome.status === "compacted",
      )!.checkpointId!;
      // The first worker is gone (a restart): a run that had read the thread before the write supersedes it.
      await agent.invoke(
        {
          messages: [new HumanMessage({ id: `late-restart-${kind}`, content: "One more question, after a restart." })],
        },
        { configurable: { thread_id: thread, checkpoint_id: head } },
      );
      const outcomes: ThreadOutcome[] = [];
      const restarted = new CompactionWorker(store.saver, {
        trigger: { tokens: LIMIT },
        idleMs: 0,
        env: {},
        onOutcome: (outcome) => void outcomes.push(outcome),
      });
      await restarted.runOnce();
      expect(outcomes.filter((outcome) => outcome.status === "superseded")).toEqual([
        expect.objectContaining({
          threadId: thread,
          checkpointId: written,
          reason: expect.stringContaining("deleted"),
        }),
      ]);
      const stored: string[] = [];
      for await (const tuple of store.saver.list(config(thread))) stored.push(tuple.checkpoint.id);
      expect(stored).not.toContain(written);
      await expectNothingLost(store.saver, [thread]);
      // Reported once: the next pass finds nothing more.
      expect((await restarted.runOnce()).superseded).toBe(0);
      await restarted.stop();
    });

    it("leaves a thread whose head moved within idleMs", async () => {
      const { store } = seeded;
      const fresh = `fresh-${kind}`;
      await seedTurns(createTestAgent(store.saver).agent, fresh, 30);
      const worker = new CompactionWorker(store.saver, { trigger: { tokens: LIMIT }, idleMs: 3_600_000, env: {} });
      const once = await worker.runOnce();
      await worker.stop();
      // Its job waits in the queue until the thread has been idle for idleMs.
      expect(once.changed).toBeGreaterThan(0);
      expect(once).toMatchObject({ jobs: 0, compacted: 0 });
    });

    it("start() runs the jobs of the threads that need them until stop(); request() sends one", async () => {
      const { store } = seeded;
      const thread = `started-${kind}`;
      const asked = `asked-${kind}`;
      const { agent } = createTestAgent(store.saver);
      await seedTurns(agent, thread, 30);
      const compacted = new Set<string>();
      let heard!: () => void;
      const both = new Promise<void>((resolve) => (heard = resolve));
      const worker = new CompactionWorker(store.saver, {
        trigger: { tokens: LIMIT },
        idleMs: 0,
        pollMs: 500,
        env: {},
        onOutcome: (outcome) => {
          if (outcome.status === "compacted") compacted.add(outcome.threadId);
          if (compacted.has(thread) && compacted.has(asked)) heard();
        },
      });
      await worker.start();
      await seedTurns(agent, asked, 30);
      await worker.request(asked);
      await both;
      await worker.stop();
      expect(worker.stats().compacted).toBeGreaterThanOrEqual(2);
      await expectNothingLost(store.saver, [thread, asked]);
      await expect(worker.stop()).resolves.toBeUndefined();
    });
  });
}

describe("compactThreads", () => {
  const seeded = seededStore("sqlite");

  it("compacts every thread above its trigger, two at a time, reporting progress, and loses nothing", async () => {
    const { store, threads } = seeded;
    const progress: number[] = [];
    const result = await compactThreads(store.saver, {
      trigger: { tokens: LIMIT },
      concurrency: 2,
      env: {},
      onProgress: ({ done, total }) => void progress.push(done / total),
    });
    expect(result).toMatchObject({ compacted: 4, skipped: 8, failed: 0, notAttempted: 0 });
    expect(progress.at(-1)).toBe(1);
    expect(progress).toHaveLength(12);
    // One callback tells each outcome: onProgress carries it, so the worker's onOutcome is not an option here.
    await expect(
      compactThreads(store.saver, { trigger: { tokens: LIMIT }, env: {}, onOutcome: () => undefined } as never),
    ).rejects.toThrow(/no option "onOutcome" in compactThreads/);
    await expectNothingLost(store.saver, [...threads.big, ...threads.small]);
    const page = await readTranscript(store.saver, config("big-a"), { limit: 10_000 });
    expect(page.messages.filter((line) => line.source === "transcript").length).toBeGreaterThan(0);
  });

  it("stops taking threads once its signal aborts", async () => {
    const { store } = seeded;
    const controller = new AbortController();
    controller.abort();
    const result = await compactThreads(store.saver, {
      trigger: { tokens: LIMIT },
      env: {},
      signal: controller.signal,
      threads: ["big-a", "big-b"],
    });
    expect(result).toMatchObject({ compacted: 0, notAttempted: 2 });
  });
});

describe("the worker's bad options", () => {
  it("are refused with the option named, as the wrapper's", async () => {
    const store = await createStore("memory");
    expect(() => new CompactionWorker(store.saver, { env: {} })).toThrow(/needs a trigger/);
    expect(() => new CompactionWorker(store.saver, { trigger: { tokens: -5 }, env: {} })).toThrow(
      /trigger.tokens must be .*got -5/,
    );
    expect(() => new CompactionWorker(store.saver, { trigger: { tokens: 1_000 }, concurrency: 0, env: {} })).toThrow(
      /concurrency must be an integer >= 1; got 0/,
    );
    expect(() => new CompactionWorker(store.saver, { trigger: { tokens: 1_000 }, idleMs: -1, env: {} })).toThrow(
      /idleMs.*-1/,
    );
    expect(() => new CompactionWorker(store.saver, { trigger: { tokens: 1_000 }, pollMs: 10, env: {} })).toThrow(
      /pollMs must be an integer >= 50; got 10/,
    );
    expect(
      () => new CompactionWorker(store.saver, { trigger: { tokens: 1_000 }, onOutcome: "log" as never, env: {} }),
    ).toThrow(/onOutcome must be a function/);
    await expect(compactThreads(store.saver, { env: {} })).rejects.toThrow(/compactThreads needs a trigger/);
    await expect(
      compactThreads(store.saver, { trigger: { tokens: 100 }, threads: "big-a" as never, env: {} }),
    ).rejects.toThrow(/threads.*big-a/);
    await expect(
      compactThreads(store.saver, { trigger: { tokens: 100 }, over: 100, env: {} } as never),
    ).rejects.toThrow(/no option "over" in compactThreads/);
  });

  it("refuses a store that is not Postgres, naming it, before it takes a job", async () => {
    const store = await createStore("sqlite");
    try {
      const worker = new CompactionWorker(store.saver, { trigger: { tokens: LIMIT }, env: {} });
      await expect(worker.start()).rejects.toMatchObject({ code: "UNSUPPORTED", value: "sqlite" });
      await expect(worker.runOnce()).rejects.toThrow(/Postgres \(pg-boss\).*this store is sqlite/);
      await worker.stop();
    } finally {
      await store.close();
    }
  });
});
