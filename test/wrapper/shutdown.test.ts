/**
 * flush() and close() while turns keep running: flush() waits for the compactions in flight when it was called (and
 * the writes they go on to), not for the threads to go quiet; close() starts no new compaction and resolves once
 * those in flight have finished, whatever turns still run. Phases are driven by the summarizer's gate, never by time.
 */
import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { afterEach, beforeEach, expect, it } from "vitest";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { modelWithHardLimit } from "../support/window.js";
import { createTestAgent } from "../support/agents.js";
import { GatedSummarizer } from "../support/fakes/gated-summarizer.js";
import { createStore, type TestStore } from "../support/savers.js";

let store: TestStore;
beforeEach(async () => void (store = await createStore("sqlite")));
afterEach(async () => await store.close());

const THREADS = 4;
/** Turns a lane runs at most: a lane still running when this is reached means flush() or close() never resolved. */
const MAX_TURNS = 400;

async function busyWrapper() {
  const { agent } = createTestAgent(store.saver);
  const summarizer = new GatedSummarizer();
  let landed = 0;
  const supervisor = new CompactingSupervisor(agent, {
    trigger: { tokens: 1_000 },
    lateness: 1_000,
    model: modelWithHardLimit(1_000_000),
    summarizer,
    env: {},
    onCompaction: (report) => void (report.status === "compacted" && landed++),
  });
  let stop = false;
  let turns = 0;
  const lane = async (thread: number) => {
    for (let turn = 0; !stop && turn < MAX_TURNS; turn++) {
      turns++;
      await supervisor.invoke(
        {
          messages: [
            new HumanMessage(
              `turn ${turn}: the invoice total for order ord_${thread}${turn} is 340 EUR, decided by Alice Moreau.`,
            ),
          ],
        },
        { configurable: { thread_id: `busy-${thread}` } },
      );
    }
  };
  const lanes = Promise.all(Array.from({ length: THREADS }, (_, thread) => lane(thread)));
  // Wait (by signal) until a summary is held in flight.
  while (summarizer.calls === 0) await new Promise((resolve) => setImmediate(resolve));
  return {
    supervisor,
    summarizer,
    landed: () => landed,
    turns: () => turns,
    stop: async () => {
      stop = true;
      await lanes;
    },
  };
}

it("flush() resolves while turns go on: it waits for the summaries in flight when called, and their writes", async () => {
  const busy = await busyWrapper();
  const inFlight = busy.summarizer.calls;
  const flushed = busy.supervisor.flush();
  let done = false;
  void flushed.then(() => (done = true));
  busy.summarizer.release();
  await flushed;
  expect(done).toBe(true);
  // The turns were still running when it resolved: it did not wait for the threads to go quiet.
  const turnsAtFlush = busy.turns();
  expect(turnsAtFlush).toBeLessThan(THREADS * MAX_TURNS);
  expect(busy.landed()).toBeGreaterThanOrEqual(1);
  expect(inFlight).toBeGreaterThan(0);
  await busy.stop();
});

it("close() starts no new compaction and resolves once those in flight finished, whatever turns still run", async () => {
  const busy = await busyWrapper();
  const closing = busy.supervisor.close();
  busy.summarizer.release();
  await closing;
  const turnsAtClose = busy.turns();
  const callsAtClose = busy.summarizer.calls;
  const landedAtClose = busy.landed();
  expect(turnsAtClose).toBeLessThan(THREADS * MAX_TURNS);
  // Turns go on after close(), forwarded as they are: no summary starts, none lands.
  const target = turnsAtClose + 40;
  while (busy.turns() < target) await new Promise((resolve) => setImmediate(resolve));
  expect(busy.summarizer.calls).toBe(callsAtClose);
  expect(busy.landed()).toBe(landedAtClose);
  await busy.stop();
});

it("tracking a task that rejects adds no unhandled rejection of its own, and flush() still resolves", async () => {
  const { BackgroundWork } = await import("../../src/runtimes/wrapper/background-work.js");
  const work = new BackgroundWork();
  const unhandled: unknown[] = [];
  const listen = (reason: unknown) => void unhandled.push(reason);
  process.on("unhandledRejection", listen);
  try {
    const task = Promise.reject(new Error("Cannot use a pool after calling end on the pool"));
    work.track(task);
    // The task's owner handles its outcome, as every owner of tracked work does.
    await task.catch(() => undefined);
    await work.flush();
    // Rejections are reported after the microtasks of the tick that settled them.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off("unhandledRejection", listen);
  }
  expect(unhandled).toEqual([]);
});

/**
 * A MemorySaver whose listing (what a prune reads, never a turn) waits, while gated, until the turn after the one in
 * flight has ended: a prune started at the end of a turn is still running when the next turn ends.
 */
class TurnGatedSaver extends MemorySaver {
  gated = false;
  listings = 0;
  turns = 0;
  readonly waiting: Array<{ until: number; resolve: () => void }> = [];

  async *list(...args: Parameters<MemorySaver["list"]>): ReturnType<MemorySaver["list"]> {
    this.listings++;
    if (this.gated) await new Promise<void>((resolve) => this.waiting.push({ until: this.turns + 2, resolve }));
    yield* super.list(...args);
  }

  turnEnded(): void {
    this.turns++;
    for (const waiter of [...this.waiting])
      if (waiter.until <= this.turns || !this.gated) {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        waiter.resolve();
      }
  }

  open(): void {
    this.gated = false;
    this.turnEnded();
  }
}

it("with keepCheckpoints, flush() and close() resolve while turns go on: each prune run spans a turn, and a prune asked for meanwhile is one more run, not a loop", async () => {
  const saver = new TurnGatedSaver();
  const supervisor = new CompactingSupervisor(createTestAgent(saver).agent, {
    trigger: { tokens: 1_000_000 },
    keepCheckpoints: 2,
    env: {},
  });
  const LIMIT = 40;
  let turns = 0;
  const settled: { flush?: number; close?: number } = {};
  const turn = async () => {
    await supervisor.invoke(
      { messages: [new HumanMessage(`turn ${turns}: where is parcel pk_${turns}?`)] },
      {
        configurable: { thread_id: "pruned-under-load" },
      },
    );
    turns++;
    saver.turnEnded();
  };
  for (let index = 0; index < 3; index++) await turn();
  // From here every prune's read waits for the next turn to end: a turn always ends while a prune runs.
  saver.gated = true;
  await turn();
  // A prune is held in its read now (the signal): flush, then close.
  expect(saver.waiting).toHaveLength(1);
  void supervisor.flush().then(() => {
    settled.flush = turns;
    void supervisor.close().then(() => void (settled.close = turns));
  });
  while (turns < LIMIT) await turn();
  saver.open();
  await supervisor.close();
  expect(saver.listings).toBeGreaterThan(3);
  expect(settled.flush, "flush() waited for the turns to stop").toBeLessThan(LIMIT);
  expect(settled.close, "close() waited for the turns to stop").toBeLessThan(LIMIT);
});
