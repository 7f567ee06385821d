/**
 * The summarizer's long loops run in slices: between two slices the event loop gets a turn (other callbacks run),
 * and the result is the one the same steps give in one go.
 */
import { describe, expect, it } from "vitest";
import { distinct, distinctSteps } from "../src/summarizers/extractive/select.js";
import { drain, sliced, turnOver } from "../src/slices.js";
import { buildCandidates, candidateSteps } from "../src/summarizers/extractive/candidates.js";
import { generateHistory } from "../scripts/workload/history.js";

describe("slices", () => {
  it("gives the event loop a turn between slices, with the result of running the steps in one go", async () => {
    const messages = generateHistory({ seed: 3, messages: 300 });
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    // Slices of 0 ms: the event loop gets a turn after every step (a message, a sentence), whatever the machine.
    const candidates = await sliced(candidateSteps([], messages, 240), 0);
    const kept = await sliced(distinctSteps(candidates), 0);
    ticking = false;
    expect(turns).toBeGreaterThanOrEqual(messages.length);
    expect(candidates).toEqual(buildCandidates([], messages, 240));
    expect(kept.map((candidate) => candidate.order)).toEqual(distinct(candidates).map((candidate) => candidate.order));
    expect(drain(distinctSteps(candidates)).length).toBe(kept.length);
  });
});

describe("turnOver", () => {
  it("lets a due timer and an I/O callback run before what follows it", async () => {
    const ran: string[] = [];
    setTimeout(() => ran.push("timer"), 1);
    // The timer is due (its 1 ms passed) before the event loop gets a turn.
    const until = performance.now() + 3;
    while (performance.now() < until);
    await turnOver();
    expect(ran).toEqual(["timer"]);
  });
});
