/**
 * The fleet: four worker processes (CompactionWorker, jobs on pg-boss) over one real Postgres and 40 threads over
 * their limit, one worker SIGKILLed when its first summary starts and one SIGTERMed while its first summary hangs
 * (the phases drive the signals, no timer). Every thread is compacted exactly once on its head's lineage, no two jobs
 * of one thread ever run at once (as the jobs themselves record it), the killed job is run again by another worker,
 * nothing is lost, and the queue is empty at the end. Drawn kill points: test/reliability/fleet-kills.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestAgent, seedTurns } from "../support/agents.js";
import {
  compactedAll,
  expectFleetRun,
  jobSpans,
  queueEmptied,
  startWorker,
  type FleetWorker,
} from "../support/fleet.js";
import { createStore, type TestStore } from "../support/savers.js";

const LIMIT = 1_500;
const THREADS = Array.from({ length: 40 }, (_, index) => `fleet-${index}`);

describe("a fleet of four worker processes on one Postgres (pg-boss)", () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await createStore("postgres");
    const { agent } = createTestAgent(store.saver);
    for (const thread of THREADS) await seedTurns(agent, thread, 30);
  });
  afterAll(async () => await store.close());

  it("compacts 40 threads exactly once each through a SIGKILL and a SIGTERM, never two jobs of a thread at once", async () => {
    const { heard, done } = compactedAll(THREADS);
    const workers: FleetWorker[] = [];
    // One after the other, each signal at its worker's first summary: the killed one first, while it is alone.
    workers.push(startWorker(store, LIMIT, "killed", "kill", heard));
    await workers[0]!.exited;
    let hangingStarted!: () => void;
    const hangs = new Promise<void>((resolve) => (hangingStarted = resolve));
    let terminated = false;
    const hanging = startWorker(store, LIMIT, "terminated", "hang", (line) => {
      heard(line);
      // Its first summary hangs: SIGTERM now (once), with a job in flight.
      if (line.startsWith("summarizing") && !terminated) {
        terminated = true;
        hanging.child.kill("SIGTERM");
        hangingStarted();
      }
    });
    workers.push(hanging);
    await hangs;
    workers.push(startWorker(store, LIMIT, "a", "-", heard), startWorker(store, LIMIT, "b", "-", heard));
    await done;
    // The queue empties: every job done (a thread's jobs after its compaction find it under the limit).
    await queueEmptied(store);
    for (const worker of workers.slice(2)) worker.child.kill("SIGTERM");
    const exits = await Promise.all(workers.map((worker) => worker.exited));
    expect(exits.map((exit) => exit.signal)).toEqual(["SIGKILL", null, null, null]);
    expect(workers[1]!.lines.at(-1)).toBe("stopped");
    const spans = jobSpans(workers, exits);
    expect(spans.filter((span) => span.died).length).toBeGreaterThanOrEqual(1);
    await expectFleetRun(store, THREADS, spans);
  }, 180_000);
});
