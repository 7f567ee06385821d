/**
 * The fleet under drawn kills: each trial, three worker processes (jobs on pg-boss) over 16 threads over their limit
 * in a fresh Postgres schema, one of them SIGKILLed when its Nth summary starts, N drawn from the seed (the child
 * kills itself there: no timer decides where). Every thread compacted exactly once on its head's lineage, no two jobs
 * of one thread at once, every job the dead worker was in run again by another, nothing lost, the queue empty.
 * Run by `npm run test:reliability` (FLEET_KILL_TRIALS, 6; one at reduced size): `npm test` runs one kill in
 * test/worker/fleet.test.ts.
 */
import { describe, expect, it } from "vitest";
import { createTestAgent, seedTurns } from "../support/agents.js";
import { compactedAll, expectFleetRun, jobSpans, queueEmptied, startWorker } from "../support/fleet.js";
import { FUZZ_SEED, recordFigures, size } from "../support/reliability.js";
import { createStore } from "../support/savers.js";

const LIMIT = 1_500;
const TRIALS = size("FLEET_KILL_TRIALS", 1, 6);
const THREADS = Array.from({ length: 16 }, (_, index) => `drawn-${index}`);

describe("the fleet under drawn kills (Postgres, pg-boss)", () => {
  it(`survives ${TRIALS} worker SIGKILL(s) at drawn summaries: each thread compacted once, nothing lost`, async () => {
    let seed = FUZZ_SEED;
    const draw = (below: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) % below;
    const killedAt: number[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      const store = await createStore("postgres");
      try {
        const { agent } = createTestAgent(store.saver);
        for (const thread of THREADS) await seedTurns(agent, thread, 30);
        const nth = 1 + draw(4);
        killedAt.push(nth);
        const { heard, done } = compactedAll(THREADS);
        // The drawn worker first, alone until its jobs run; then the two others.
        let running!: () => void;
        const started = new Promise<void>((resolve) => (running = resolve));
        const workers = [
          startWorker(store, LIMIT, "killed", `kill:${nth}`, (line) => {
            heard(line);
            if (line.startsWith("job-start")) running();
          }),
        ];
        await started;
        workers.push(startWorker(store, LIMIT, "a", "-", heard), startWorker(store, LIMIT, "b", "-", heard));
        await done;
        await queueEmptied(store);
        for (const worker of workers)
          if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill("SIGTERM");
        const exits = await Promise.all(workers.map((worker) => worker.exited));
        const spans = jobSpans(workers, exits);
        // The drawn worker died at its Nth summary, unless the others had left it fewer than N.
        const summaries = workers[0]!.lines.filter((line) => line.startsWith("summarizing")).length;
        expect(exits[0]!.signal === "SIGKILL", `trial ${trial}: ${summaries} summaries, kill at ${nth}`).toBe(
          summaries >= nth,
        );
        await expectFleetRun(store, THREADS, spans);
      } finally {
        await store.close();
      }
    }
    recordFigures("fleet-kills", { trials: TRIALS, killedAtSummary: killedAt });
  }, 1_200_000);
});
