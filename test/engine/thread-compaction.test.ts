/**
 * One thread's compaction (engine/thread-compaction.ts), the per-thread lifecycle the wrapper, the middleware and the
 * node each hold: its states, what it answers when a turn ends or starts, the back-off, the breaker's pause, the
 * prune that follows a write, and the bounded table of threads.
 */
import { describe, expect, it } from "vitest";
import { CircuitBreaker } from "../../src/engine/circuit-breaker.js";
import { CEILING_SHARE } from "../../src/engine/policy.js";
import { ThreadCompaction, ThreadCompactions, type CompactionRules } from "../../src/engine/thread-compaction.js";

const rules: CompactionRules = { tokenLimit: 1_000, hardLimit: 5_000, lateness: 1 };

function compaction(breaker = new CircuitBreaker(10_000, 2, 60_000)) {
  return new ThreadCompaction<string>("thread", rules, breaker);
}

describe("one thread's compaction", () => {
  it("goes idle → preparing → ready → applying → idle, and is busy in every state but idle", async () => {
    const thread = compaction();
    expect(thread.state).toBe("idle");
    expect(thread.busy).toBe(false);
    let finish!: () => void;
    thread.preparing = new Promise<void>((resolve) => (finish = resolve));
    expect(thread.state).toBe("preparing");
    expect(thread.busy).toBe(true);
    expect(thread.ended(1_200)).toBe("none");
    finish();
    await thread.preparing;
    thread.preparing = undefined;
    thread.ready = "summary";
    expect(thread.state).toBe("ready");
    thread.inFlight = 1;
    expect(thread.ended(1_200)).toBe("none");
    thread.inFlight = 0;
    expect(thread.ended(1_200)).toBe("apply");
    thread.applying = Promise.resolve();
    expect(thread.state).toBe("applying");
    thread.applying = undefined;
    thread.ready = undefined;
    expect(thread.state).toBe("idle");
    expect(thread.busy).toBe(false);
  });

  it("holds its states itself: prepare → ready (then the runtime's after step), take, done; settle and apply while they run", async () => {
    const thread = compaction();
    const seen: string[] = [];
    let give!: (summary: string) => void;
    const preparing = thread.prepare(new Promise<string>((resolve) => (give = resolve)), async () => {
      seen.push(`after: ${thread.state}`);
    });
    expect(thread.state).toBe("preparing");
    give("summary");
    await preparing;
    expect(seen).toEqual(["after: ready"]);
    expect(thread.preparing).toBeUndefined();
    expect(thread.take()).toBe("summary");
    expect(thread.state).toBe("idle");
    await thread.prepare(Promise.resolve(undefined));
    expect(thread.state).toBe("idle");
    await thread.prepare(Promise.resolve("second"));
    thread.done("another");
    expect(thread.ready).toBe("second");
    let write!: () => void;
    const applying = thread.apply(new Promise<void>((resolve) => (write = resolve)));
    expect(thread.state).toBe("applying");
    write();
    await applying;
    thread.done("second");
    expect(thread.state).toBe("idle");
    let settled!: () => void;
    const settling = thread.settle(new Promise<void>((resolve) => (settled = resolve)));
    expect(thread.busy).toBe(true);
    settled();
    await settling;
    expect(thread.busy).toBe(false);
  });

  it("starts a summary when a turn ends over the limit, and makes the turn past lateness wait", () => {
    const thread = compaction();
    expect(thread.ended(900)).toBe("none");
    expect(thread.ended(1_100)).toBe("start");
    thread.preparing = new Promise<void>(() => {});
    expect(thread.starting(1_100)).toBe("go");
    expect(thread.starting(1_100)).toBe("wait");
    thread.waited();
    expect(thread.starting(1_100)).toBe("go");
    expect(thread.starting(5_001)).toBe("rescue");
  });

  it("after a summary that could not be written, starts none before the thread grew by the margin", () => {
    const thread = compaction();
    thread.backOff(1_100);
    const margin = Math.floor(rules.tokenLimit * (1 - CEILING_SHARE));
    expect(thread.ended(1_100 + margin - 1)).toBe("none");
    expect(thread.ended(1_100 + margin)).toBe("start");
    thread.backOff(1_100);
    thread.retryNow();
    expect(thread.ended(1_100)).toBe("start");
    thread.backOff(1_100);
    thread.landed();
    expect(thread.ended(1_100)).toBe("start");
  });

  it("is paused by the breaker after repeated failures, told once, and a landing closes it", () => {
    const breaker = new CircuitBreaker(10_000, 2, 60_000);
    const thread = compaction(breaker);
    expect(thread.failed(new Error("one"))).toBeUndefined();
    expect(thread.failed(new Error("two"))?.code).toBe("COMPACTION_PAUSED");
    expect(thread.state).toBe("paused");
    expect(thread.ended(2_000)).toBe("none");
    expect(thread.starting(2_000)).toBe("go");
    thread.landed();
    expect(thread.state).toBe("idle");
  });

  it("compares counts with the limits for its runtime: at risk past the hard limit, surely under below both", () => {
    const thread = compaction();
    expect(thread.atRisk(5_000)).toBe(false);
    expect(thread.atRisk(5_001)).toBe(true);
    expect(thread.surelyUnder(1_000)).toBe(true);
    expect(thread.surelyUnder(1_001)).toBe(false);
  });

  it("runs one prune at a time, and once more for any number of asks while it runs: a promise of its own", async () => {
    const thread = compaction();
    const runs: number[] = [];
    let release!: () => void;
    const run = async () => {
      runs.push(runs.length);
      if (runs.length === 1) await new Promise<void>((resolve) => (release = resolve));
    };
    const first = thread.prune(run);
    expect(first.started).toBe(true);
    const second = thread.prune(run);
    const third = thread.prune(run);
    expect([second.started, third.started]).toEqual([true, false]);
    // The run asked for meanwhile is not the running one: what waits for the first does not wait for it.
    expect(second.pruning).not.toBe(first.pruning);
    expect(third.pruning).toBe(second.pruning);
    expect(thread.busy).toBe(true);
    release();
    await first.pruning;
    await second.pruning;
    expect(runs).toEqual([0, 1]);
    expect(thread.pruning).toBeUndefined();
    // Asked again once idle: a new run at once.
    const fourth = thread.prune(run);
    expect(fourth.started).toBe(true);
    await fourth.pruning;
    expect(runs).toEqual([0, 1, 2]);
  });
});

describe("the threads' compactions", () => {
  it("keeps at most `max`, forgetting the least recently used idle ones, never one with a summary in flight", async () => {
    const breaker = new CircuitBreaker(10_000, 3, 60_000);
    const threads = new ThreadCompactions<string>(10, (key) => new ThreadCompaction(key, rules, breaker));
    let finish!: () => void;
    const busy = threads.of("busy");
    busy.preparing = new Promise<void>((resolve) => (finish = resolve)).then(() => {
      busy.preparing = undefined;
    });
    for (let index = 0; index < 30; index++) threads.of(`t${index}`);
    expect(threads.of("busy")).toBe(busy);
    expect(threads.of("t29").key).toBe("t29");
    let idle = false;
    const waiting = threads.idle().then(() => (idle = true));
    await Promise.resolve();
    expect(idle).toBe(false);
    finish();
    await waiting;
    expect(idle).toBe(true);
  });
});
