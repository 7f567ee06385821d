/**
 * CompactionWorker and compactThreads over real savers: a pass reads only the heads that changed, compacts the idle
 * threads over the limit and loses nothing; a pass with nothing changed reads no head; two workers on one Postgres
 * (each with its own pool, as two processes) compact every thread exactly once, their leases never overlapping; an
 * expired lease is taken over, a live one is respected; bad options are refused as the wrapper refuses them.
 */
import { HumanMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditThread } from "../../src/engine/audit.js";
import { readTranscript } from "../../src/recall/transcript.js";
import { CompactionWorker, LeasedCompactor, type ThreadOutcome } from "../../src/runtimes/worker/compaction-worker.js";
import { compactThreads } from "../../src/runtimes/worker/compact-threads.js";
import { createTestAgent, runTurns, seedTurns } from "../support/agents.js";
import { createStore, SAVER_KINDS, type SaverKind, type TestStore } from "../support/savers.js";

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

for (const kind of SAVER_KINDS) {
  describe(`CompactionWorker (${kind})`, () => {
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
      // Every head counted once, under its lease; the four over the limit compacted.
      expect(first).toMatchObject({ changed: 12, headsRead: 12, candidates: 12, compacted: 4, skipped: 8, failed: 0 });
      expect(
        outcomes
          .filter((outcome) => outcome.status === "compacted")
          .map((outcome) => outcome.threadId)
          .sort(),
      ).toEqual(threads.big);
      for (const outcome of outcomes) expect(outcome.tokensAfter ?? outcome.tokensBefore!).toBeLessThanOrEqual(LIMIT);
      await expectNothingLost(store.saver, [...threads.big, ...threads.small]);
      // The worker knows the heads it wrote: with nothing changed, the next pass reads no head.
      expect(await worker.runOnce()).toMatchObject({ changed: 0, headsRead: 0, candidates: 0 });
      // A thread that grows is read again, and compacted when it is over the limit again.
      await runTurns(createTestAgent(store.saver).agent, "big-a", 14, { from: 30 });
      expect(await worker.runOnce()).toMatchObject({ changed: 1, headsRead: 1, candidates: 1, compacted: 1 });
      expect(await worker.runOnce()).toMatchObject({ changed: 0, headsRead: 0, candidates: 0 });
      expect(worker.stats()).toMatchObject({
        passes: 4,
        threadsSeen: 12,
        headsRead: 13,
        compacted: 5,
        superseded: 0,
        errors: 0,
        conflicts: 0,
        skipped: { "under limit": 8 },
      });
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
    });

    it("finds a compaction superseded while its worker was gone: a new worker reports it from the store and deletes it", async () => {
      const { store } = seeded;
      const thread = `superseded-restart-${kind}`;
      const { agent } = createTestAgent(store.saver);
      await seedTurns(agent, thread, 30);
      const head = (await store.saver.getTuple(config(thread)))!.checkpoint.id;
      const first: ThreadOutcome[] = [];
      await new CompactionWorker(store.saver, {
        trigger: { tokens: LIMIT },
        idleMs: 0,
        env: {},
        onOutcome: (outcome) => void first.push(outcome),
      }).runOnce();
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
    });

    it("leaves a thread whose head moved within idleMs", async () => {
      const { store } = seeded;
      const fresh = `fresh-${kind}`;
      await seedTurns(createTestAgent(store.saver).agent, fresh, 30);
      const worker = new CompactionWorker(store.saver, { trigger: { tokens: LIMIT }, idleMs: 3_600_000, env: {} });
      const pass = await worker.runOnce();
      expect(pass.candidates).toBe(0);
      expect(pass.compacted).toBe(0);
    });
  });
}

describe("two CompactionWorkers on one Postgres, each with its own pool", () => {
  const seeded = seededStore("postgres");

  it("compact every thread over the limit exactly once; no two leases on one thread overlap; nothing lost", async () => {
    const { store, threads } = seeded;
    const log: Array<{ threadId: string; owner: string; event: "taken" | "released" }> = [];
    const outcomes: ThreadOutcome[] = [];
    const workers = await Promise.all(
      [0, 1].map(
        async () =>
          new CompactionWorker(await store.reopen(), {
            trigger: { tokens: LIMIT },
            idleMs: 0,
            env: {},
            onLease: (event) => void log.push(event),
            onOutcome: (outcome) => void outcomes.push(outcome),
          }),
      ),
    );
    await Promise.all(workers.map((worker) => worker.runOnce()));
    const compacted = outcomes.filter((outcome) => outcome.status === "compacted").map((outcome) => outcome.threadId);
    expect(compacted.sort()).toEqual(threads.big);
    // The log of takes: per thread, each take is released before the next one.
    const holder = new Map<string, string>();
    for (const { threadId, owner, event } of log) {
      if (event === "taken") {
        expect(holder.has(threadId), `${threadId} taken by ${owner} while ${holder.get(threadId)} held it`).toBe(false);
        holder.set(threadId, owner);
      } else {
        expect(holder.get(threadId)).toBe(owner);
        holder.delete(threadId);
      }
    }
    expect(log.filter((event) => event.event === "taken").length).toBeGreaterThanOrEqual(4);
    await expectNothingLost(store.saver, [...threads.big, ...threads.small]);
  });

  it("takes over an expired lease and respects a live one", async () => {
    const { store } = seeded;
    const { agent } = createTestAgent(store.saver);
    await seedTurns(agent, "leased-dead", 30);
    await seedTurns(agent, "leased-live", 30);
    const client = new pg.Client({ connectionString: store.location.url });
    await client.connect();
    const table = `"${store.location.schema}".compaction_leases`;
    // A worker that died long ago, and one compacting now.
    await new CompactionWorker(store.saver, { trigger: { tokens: 1_000_000 }, idleMs: 0, env: {} }).runOnce();
    await client.query(
      `INSERT INTO ${table} (thread_id, owner, expires_at) VALUES ('leased-dead', 'worker-dead', now() - interval '1 hour'), ('leased-live', 'worker-busy', now() + interval '1 hour')
       ON CONFLICT (thread_id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at`,
    );
    const outcomes: ThreadOutcome[] = [];
    const worker = new CompactionWorker(await store.reopen(), {
      trigger: { tokens: LIMIT },
      idleMs: 0,
      env: {},
      onOutcome: (outcome) => void outcomes.push(outcome),
    });
    await worker.runOnce();
    expect(outcomes.find((outcome) => outcome.threadId === "leased-dead")).toMatchObject({ status: "compacted" });
    expect(outcomes.find((outcome) => outcome.threadId === "leased-live")).toMatchObject({
      status: "skipped",
      reason: "leased",
    });
    expect(worker.stats().conflicts).toBe(1);
    // Released after the compaction: only the live lease is held (released rows keep what their holder saw).
    expect(
      (await client.query(`SELECT thread_id FROM ${table} WHERE owner <> '' ORDER BY thread_id`)).rows.map(
        (row) => row.thread_id,
      ),
    ).toEqual(["leased-live"]);
    await client.end();
  });
});

describe("a worker behind another", () => {
  const seeded = seededStore("sqlite");

  it("skips the threads the other has done since its pass began, without a lease or a read", async () => {
    const { store, threads } = seeded;
    const all = [...threads.big, ...threads.small];
    const behind = new LeasedCompactor(await store.reopen(), {
      trigger: { tokens: LIMIT },
      env: {},
      onLease: () => expect.fail("a lease was taken"),
    });
    // The heads its pass saw, before the other worker compacted the big threads and counted the small ones.
    const heads = new Map((await behind.store.changedSince("")).map((row) => [row.threadId, row.headCheckpointId]));
    const ahead = await new LeasedCompactor(store.saver, { trigger: { tokens: LIMIT }, env: {} }).run(all, { heads });
    expect(ahead.outcomes.filter((outcome) => outcome.status === "compacted")).toHaveLength(threads.big.length);
    const { outcomes } = await behind.run(all, { heads });
    expect(outcomes).toHaveLength(all.length);
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({ status: "skipped", reason: expect.stringMatching(/^counted by another worker/) });
      expect(outcome.headId).toBeUndefined();
    }
    // A thread that grew past what the other counted is read and compacted again.
    await runTurns(createTestAgent(store.saver).agent, "big-a", 14, { from: 30 });
    const grown = new Map((await behind.store.changedSince("")).map((row) => [row.threadId, row.headCheckpointId]));
    const again = new LeasedCompactor(store.saver, { trigger: { tokens: LIMIT }, env: {} });
    expect((await again.run(["big-a"], { heads: grown })).outcomes[0]).toMatchObject({ status: "compacted" });
    await expectNothingLost(store.saver, all);
  });
});

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

  it("start() passes until stop(), which waits for the pass in flight", async () => {
    const store = await createStore("memory");
    await seedTurns(createTestAgent(store.saver).agent, "looped", 30);
    let announce!: () => void;
    const firstPass = new Promise<void>((resolve) => (announce = resolve));
    const worker = new CompactionWorker(store.saver, {
      trigger: { tokens: LIMIT },
      idleMs: 0,
      pollMs: 600_000,
      env: {},
      onPass: () => announce(),
    });
    worker.start();
    await firstPass;
    await worker.stop();
    expect(worker.stats()).toMatchObject({ passes: 1, compacted: 1 });
    await expect(worker.stop()).resolves.toBeUndefined();
  });
});
