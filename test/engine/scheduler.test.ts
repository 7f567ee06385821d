/**
 * The one scheduler's rules (engine/scheduler.ts), as every runtime asks them: when a summary starts, when a turn or
 * call waits, when a ready summary is applied, and the bound on lateness.
 */
import { describe, expect, it } from "vitest";
import {
  backOff,
  ended,
  landed,
  newSchedule,
  starting,
  waited,
  type ScheduleRules,
} from "../../src/engine/scheduler.js";

const rules: ScheduleRules = { tokenLimit: 1_000, hardLimit: 5_000, lateness: 2 };

describe("the scheduler", () => {
  it("starts a summary when a turn ends over the limit, and only then", () => {
    const schedule = newSchedule();
    expect(ended(schedule, rules, { state: "idle", tokens: 1_000 })).toBe("none");
    expect(ended(schedule, rules, { state: "idle", tokens: 1_001 })).toBe("start");
    expect(ended(schedule, rules, { state: "preparing", tokens: 1_200 })).toBe("none");
    expect(ended(schedule, rules, { state: "paused", tokens: 1_200 })).toBe("none");
  });

  it("applies a ready summary once no turn is in flight", () => {
    const schedule = newSchedule();
    expect(ended(schedule, rules, { state: "ready", tokens: 1_200, inFlight: 1 })).toBe("none");
    expect(ended(schedule, rules, { state: "ready", tokens: 1_200, inFlight: 0 })).toBe("apply");
    expect(starting(schedule, rules, { state: "ready", tokens: 1_200 })).toBe("apply");
  });

  it("lets `lateness` turns start over the limit, and makes the next one wait", () => {
    const schedule = newSchedule();
    expect(starting(schedule, rules, { state: "preparing", tokens: 1_100 })).toBe("go");
    expect(starting(schedule, rules, { state: "preparing", tokens: 1_200 })).toBe("go");
    expect(schedule.overLimit).toBe(2);
    expect(starting(schedule, rules, { state: "preparing", tokens: 1_300 })).toBe("wait");
    waited(schedule);
    expect(starting(schedule, rules, { state: "preparing", tokens: 1_300 })).toBe("go");
  });

  it("lateness 0: every turn over the limit waits", () => {
    const strict = { ...rules, lateness: 0 };
    expect(starting(newSchedule(), strict, { state: "idle", tokens: 1_001 })).toBe("wait");
    expect(starting(newSchedule(), strict, { state: "idle", tokens: 1_000 })).toBe("go");
  });

  it("waits whenever the context would pass the hard limit, late or not", () => {
    expect(starting(newSchedule(), rules, { state: "preparing", tokens: 5_001 })).toBe("rescue");
    expect(starting(newSchedule(), rules, { state: "idle", tokens: 5_001 })).toBe("rescue");
  });

  it("a thread that went under the limit starts counting again", () => {
    const schedule = newSchedule();
    starting(schedule, rules, { state: "preparing", tokens: 1_100 });
    starting(schedule, rules, { state: "preparing", tokens: 1_100 });
    expect(starting(schedule, rules, { state: "idle", tokens: 900 })).toBe("go");
    expect(schedule.overLimit).toBe(0);
  });

  it("the node form starts the summary before a call over the limit", () => {
    const schedule = newSchedule();
    expect(starting(schedule, rules, { state: "idle", tokens: 1_001, startsHere: true })).toBe("start");
    expect(starting(schedule, rules, { state: "preparing", tokens: 1_050, startsHere: true })).toBe("go");
  });

  it("backs off after a summary that did not fit, unless the window is at risk, until the thread grew by the margin", () => {
    const schedule = newSchedule();
    backOff(schedule, 1_100, 100);
    expect(ended(schedule, rules, { state: "idle", tokens: 1_150 })).toBe("none");
    expect(ended(schedule, rules, { state: "idle", tokens: 1_200 })).toBe("start");
    // Late, but backing off: the turn goes on rather than compute a summary that did not fit a moment ago.
    const late = { ...rules, lateness: 0 };
    expect(starting(schedule, late, { state: "idle", tokens: 1_150 })).toBe("go");
    expect(starting(schedule, rules, { state: "idle", tokens: 5_500 })).toBe("rescue");
    landed(schedule);
    expect(schedule.retryAt).toBeUndefined();
    expect(schedule.overLimit).toBe(0);
  });

  it("a paused thread (the circuit breaker) is never made to wait for a summary that will not come", () => {
    const schedule = newSchedule();
    for (let turn = 0; turn < 5; turn++)
      expect(starting(schedule, rules, { state: "paused", tokens: 1_500 })).toBe("go");
  });
});
