/**
 * Host slots: a slot is held by one holder at a time on the machine, given to a waiter when released, freed by the
 * operating system when its process is killed; a waiter gives up when its signal aborts. Compactions take one each:
 * with `hostConcurrency: 1`, a worker's lanes summarize one at a time. Each test names its own slots, so test files
 * running side by side never share them.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { compactThreads } from "../../src/runtimes/worker/compact-threads.js";
import { CompactionWorker } from "../../src/runtimes/worker/compaction-worker.js";
import { HostSlots } from "../../src/runtimes/worker/host-slots.js";
import { GatedSummarizer } from "../support/fakes/gated-summarizer.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import type { Summarizer } from "../../src/summarizers/types.js";
import { createTestAgent, seedTurns } from "../support/agents.js";
import { childArgs, ROOT } from "../support/child-entry.js";
import { createStore } from "../support/savers.js";

const fresh = () => `compaction-test-${randomUUID()}`;

describe("HostSlots", () => {
  it("gives a slot to one holder at a time, and to a waiter once it is released", async () => {
    const slots = new HostSlots(1, fresh());
    const first = await slots.acquire();
    expect(first).toBeDefined();
    expect(await new HostSlots(1, slots.name).tryAcquire()).toBeUndefined();
    let settled = false;
    const waiter = slots.acquire().finally(() => (settled = true));
    // Until the holder sees the waiter connected (or the waiter got a slot it should not have): no timer decides.
    while (first!.waiting() === 0 && !settled) await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    first!.release();
    const second = await waiter;
    expect(second).toBeDefined();
    expect(await new HostSlots(1, slots.name).tryAcquire()).toBeUndefined();
    second!.release();
    const third = await new HostSlots(1, slots.name).tryAcquire();
    expect(third).toBeDefined();
    third!.release();
  });

  it("holds two slots of two, and a third waiter gives up when its signal aborts", async () => {
    const slots = new HostSlots(2, fresh());
    const held = [await slots.tryAcquire(), await slots.tryAcquire()];
    expect(held.every(Boolean)).toBe(true);
    const controller = new AbortController();
    const waiting = slots.acquire(controller.signal);
    controller.abort();
    await expect(waiting).resolves.toBeUndefined();
    for (const slot of held) slot!.release();
    const again = await slots.tryAcquire();
    expect(again).toBeDefined();
    again!.release();
  });

  it("is freed by the operating system when the process holding it is killed", async () => {
    const name = fresh();
    const child = spawn(process.execPath, [...childArgs("test/support/slot-holder.ts"), name], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "inherit"],
    });
    const closed = new Promise((resolve) => child.once("close", resolve));
    const said = await new Promise<string>((resolve) =>
      child.stdout.once("data", (chunk: Buffer) => resolve(chunk.toString().trim())),
    );
    expect(said).toBe("held");
    const slots = new HostSlots(1, name);
    expect(await slots.tryAcquire()).toBeUndefined();
    child.kill("SIGKILL");
    await closed;
    const slot = await slots.tryAcquire();
    expect(slot).toBeDefined();
    slot!.release();
  });
});

describe("hostConcurrency", () => {
  it("1: a worker's two lanes summarize one thread at a time, and every thread is compacted", async () => {
    const store = await createStore("sqlite");
    try {
      const { agent } = createTestAgent(store.saver);
      const threads = ["slot-a", "slot-b", "slot-c", "slot-d"];
      for (const thread of threads) await seedTurns(agent, thread, 30);
      const inner = new ExtractiveSummarizer();
      let inFlight = 0;
      let most = 0;
      const summarizer: Summarizer = {
        name: inner.name,
        maxTokens: inner.maxTokens,
        async summarize(input) {
          most = Math.max(most, ++inFlight);
          try {
            // A turn of the event loop inside the summary: the other lane runs here if nothing holds it back.
            await new Promise((resolve) => setImmediate(resolve));
            return await inner.summarize(input);
          } finally {
            inFlight--;
          }
        },
      };
      const result = await compactThreads(store.saver, {
        trigger: { tokens: 1_500 },
        threads,
        concurrency: 2,
        hostConcurrency: 1,
        summarizer,
        env: {},
      });
      expect(result).toMatchObject({ compacted: 4, failed: 0 });
      expect(most).toBe(1);
    } finally {
      await store.close();
    }
  });

  it("is the store's: a worker of another store on the machine never waits for its slots", async () => {
    const [first, second] = [await createStore("sqlite"), await createStore("sqlite")];
    try {
      for (const store of [first, second]) await seedTurns(createTestAgent(store.saver).agent, "slot-own", 30);
      // The first store's only slot, held by a summary in flight.
      const held = new GatedSummarizer();
      const holding = compactThreads(first.saver, {
        trigger: { tokens: 1_500 },
        threads: ["slot-own"],
        hostConcurrency: 1,
        summarizer: held,
        env: {},
      });
      while (held.calls === 0) await new Promise((resolve) => setImmediate(resolve));
      let firstDone = false;
      void holding.then(() => (firstDone = true));
      // The second store's worker takes a slot of its own and finishes meanwhile.
      const result = await compactThreads(second.saver, {
        trigger: { tokens: 1_500 },
        threads: ["slot-own"],
        hostConcurrency: 1,
        summarizer: new ExtractiveSummarizer(),
        env: {},
      });
      expect(result).toMatchObject({ compacted: 1, failed: 0 });
      expect(firstDone).toBe(false);
      held.release();
      expect(await holding).toMatchObject({ compacted: 1 });
    } finally {
      await first.close();
      await second.close();
    }
  });

  it("is refused when it is not a whole number of slots or false", async () => {
    const store = await createStore("memory");
    expect(
      () => new CompactionWorker(store.saver, { trigger: { tokens: 1_000 }, hostConcurrency: 0, env: {} }),
    ).toThrow(/hostConcurrency must be an integer >= 1; got 0/);
    expect(
      () => new CompactionWorker(store.saver, { trigger: { tokens: 1_000 }, hostConcurrency: 1.5, env: {} }),
    ).toThrow(/hostConcurrency.*1\.5/);
    expect(
      () => new CompactionWorker(store.saver, { trigger: { tokens: 1_000 }, hostConcurrency: false, env: {} }),
    ).not.toThrow();
  });
});
