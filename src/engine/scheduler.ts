/**
 * The one scheduler: the rules of *when* every runtime follows — when a thread's summary starts, when a turn (the
 * wrapper, the worker) or a model call (in-graph) waits for it, and when a ready summary is applied. A runtime keeps
 * one `ThreadSchedule` per thread, tells it what happened (`ended`, `starting`) and does what it is told; it decides
 * nothing of its own. Where a runtime sits (around `invoke`, before a model call, over a store) is its business;
 * when compaction happens is this file's.
 *
 * The rule that bounds lateness holds without the event loop's help: a background summary advances only when the
 * application yields (its time slices, a worker's reply, a network answer), and an application that runs turns back
 * to back with a synchronous saver and a fast model never does. So the (lateness + 1)-th turn or call that would
 * start over `tokenLimit` waits for the summary in flight, or computes one — and waiting is itself what lets a
 * background summary finish.
 */
import type { CompactionPolicy } from "./policy.js";
import { isOverLimit, pastHardLimit } from "./limits.js";

/**
 * Where a thread's compaction stands:
 * - `idle`: no summary in flight;
 * - `preparing`: a summary of a snapshot is being computed, off the turn's path;
 * - `ready`: a summary is computed and waits for a safe moment (no turn in flight) to be applied;
 * - `applying`: the rebasing compare-and-swap is being written (milliseconds);
 * - `paused`: the circuit breaker stopped compaction of the thread after repeated failures.
 */
export type ScheduleState = "idle" | "preparing" | "ready" | "applying" | "paused";

/** What the scheduler needs of a policy. */
export type ScheduleRules = Pick<CompactionPolicy, "tokenLimit" | "triggers" | "hardLimit"> & {
  /** Turns or calls that may start over the limit before one waits (policy.ts LATENESS; 0 with `background: false`). */
  readonly lateness: number;
};

/** What the scheduler remembers of a thread between two events. */
export interface ThreadSchedule {
  /** Turns or calls that started over `tokenLimit` since a compaction last landed (or the thread went under). */
  overLimit: number;
  /** After a summary that could not usefully be written: no new one before the thread holds this many tokens. */
  retryAt?: number;
}

export function newSchedule(): ThreadSchedule {
  return { overLimit: 0 };
}

/** What to do when a turn or call has ended with `tokens` in the thread's context. */
export type AfterDecision = "start" | "apply" | "none";

/**
 * A turn or model call ended and the thread holds `tokens`: start a summary (over the limit, none in flight, not
 * paused, past a failed attempt's `retryAt`), apply a ready one (no turn of this runtime in flight), or nothing.
 */
export function ended(
  schedule: ThreadSchedule,
  rules: ScheduleRules,
  {
    state,
    tokens,
    messages,
    inFlight = 0,
  }: { state: ScheduleState; tokens: number; messages?: number; inFlight?: number },
): AfterDecision {
  const over = isOverLimit(rules, tokens, messages);
  if (!over) schedule.overLimit = 0;
  if (state === "ready") return inFlight === 0 ? "apply" : "none";
  if (state !== "idle" || !over || backingOff(schedule, tokens)) return "none";
  return "start";
}

/**
 * What to do before a turn or model call whose context would hold `tokens`:
 * - `go`: run as it is (a summary, if any, goes on in the background);
 * - `start`: start a summary in the background, then run (a form with no hook after the call: the node);
 * - `apply`: apply the ready summary first (milliseconds), then run;
 * - `wait`: the thread has started `lateness` turns or calls over the limit already: wait for the summary in flight
 *   (or compute one, when none is), apply it if the head is free, then run;
 * - `rescue`: the context would pass `hardLimit` (the window at risk): as `wait`, and a head another process is
 *   mid-turn on is waited for, and a summary that could not land is computed again.
 * Counts the turn or call as late when it would start over the limit.
 */
export type BeforeDecision = "go" | "start" | "apply" | "wait" | "rescue";

/**
 * `tokens`: what the turn's or call's model call would receive (the thread and the input). `startsHere`: the runtime
 * has no moment after a call (the node), so a summary starts before one.
 */
export function starting(
  schedule: ThreadSchedule,
  rules: ScheduleRules,
  {
    state,
    tokens,
    messages,
    startsHere = false,
  }: { state: ScheduleState; tokens: number; messages?: number; startsHere?: boolean },
): BeforeDecision {
  const over = isOverLimit(rules, tokens, messages);
  const atRisk = pastHardLimit(rules, tokens);
  if (!over) schedule.overLimit = 0;
  if (state === "ready") return "apply";
  if ((!over && !atRisk) || state === "paused") return "go";
  const late = over && schedule.overLimit >= rules.lateness;
  if (over) schedule.overLimit++;
  if (atRisk) return "rescue";
  if (late) {
    // A summary that could not be written is not tried again on every call unless the window is at risk.
    return state === "idle" && backingOff(schedule, tokens) ? "go" : "wait";
  }
  return state === "idle" && startsHere && !backingOff(schedule, tokens) ? "start" : "go";
}

function backingOff(schedule: ThreadSchedule, tokens: number): boolean {
  return schedule.retryAt !== undefined && tokens < schedule.retryAt;
}

/** A turn or call waited for a summary: the next `lateness` ones go on again, whatever the outcome. */
export function waited(schedule: ThreadSchedule): void {
  schedule.overLimit = 0;
}

/** A compaction landed: the thread is under its limit again, and a failed attempt's back-off is forgotten. */
export function landed(schedule: ThreadSchedule): void {
  schedule.overLimit = 0;
  schedule.retryAt = undefined;
}

/**
 * A summary was computed but would not have ended under the ceiling: no new one before the thread has grown by
 * `margin` tokens past `tokensAtStart`, so the summarizer is not called on every turn for nothing.
 */
export function backOff(schedule: ThreadSchedule, tokensAtStart: number, margin: number): void {
  schedule.retryAt = tokensAtStart + Math.max(1, margin);
}
