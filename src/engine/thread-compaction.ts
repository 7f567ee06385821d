/**
 * One thread's compaction, as every runtime that compacts in the background holds it (the wrapper, the middleware and
 * the node): where it stands — idle, preparing, ready, applying, paused — with the summary in flight and the one
 * ready, the turns or calls of the runtime in flight, the after-turn bookkeeping and the prune that follows a write,
 * the lateness count and the back-off after a summary that could not be written, and the circuit breaker's say. A
 * runtime tells it that a turn or call ended (`ended`) or is about to start (`starting`) and does what it answers; it
 * compares no count with a limit of its own. The rules of when are engine/scheduler.ts's.
 */
import type { CircuitBreaker } from "./circuit-breaker.js";
import type { CompactionError } from "../errors.js";
import { CEILING_SHARE } from "./policy.js";
import { isOverLimit, pastHardLimit } from "./limits.js";
import {
  backOff,
  ended,
  landed,
  newSchedule,
  starting,
  waited,
  type AfterDecision,
  type BeforeDecision,
  type ScheduleRules,
  type ScheduleState,
  type ThreadSchedule,
} from "./scheduler.js";

/** The rules a thread's compaction follows: the scheduler's, with the limit every runtime has. */
export type CompactionRules = ScheduleRules & { readonly tokenLimit: number };

export class ThreadCompaction<Ready> {
  /** What the scheduler remembers between two events (turns started over the limit, a failed attempt's back-off). */
  readonly schedule: ThreadSchedule = newSchedule();
  /** Turns or calls of this runtime running on the thread now. */
  inFlight = 0;
  /** The after-turn bookkeeping (count, archive, applying a ready summary): milliseconds. */
  settling?: Promise<unknown>;
  /** The summary being computed, off the thread's critical path. */
  preparing?: Promise<void>;
  /** A summary computed and waiting for a safe moment (no turn or call in flight) to be applied. */
  ready?: Ready;
  /** The write of a ready summary in flight (milliseconds). */
  applying?: Promise<unknown>;
  /** The prune after a write or a turn (one at a time). */
  pruning?: Promise<void>;
  /** The one prune asked for while `pruning` ran, shared by every ask meanwhile: it starts when that one ends. */
  private nextPrune?: Promise<void>;

  constructor(
    readonly key: string,
    private readonly rules: CompactionRules,
    private readonly breaker: CircuitBreaker,
  ) {}

  /** Where the thread's compaction stands. */
  get state(): ScheduleState {
    if (this.applying) return "applying";
    if (this.ready !== undefined) return "ready";
    if (this.preparing) return "preparing";
    return this.paused ? "paused" : "idle";
  }

  /** The circuit breaker paused the thread's compaction after repeated failures. */
  get paused(): boolean {
    return !this.breaker.allows(this.key);
  }

  /** Anything in flight or waiting (a record that is busy is not forgotten). */
  get busy(): boolean {
    return (
      this.inFlight > 0 ||
      this.ready !== undefined ||
      [this.settling, this.preparing, this.applying, this.pruning].some((work) => work !== undefined)
    );
  }

  /**
   * Computes a summary off the turn's path (`preparing`): `ready` once `summary` gives one, then `after` (a runtime
   * applies it there when no turn is in flight).
   */
  prepare(summary: Promise<Ready | undefined>, after?: () => Promise<unknown>): Promise<void> {
    const preparing = summary.then(async (ready) => {
      if (ready !== undefined) this.ready = ready;
      if (this.preparing === preparing) this.preparing = undefined;
      await after?.();
    });
    this.preparing = preparing;
    return preparing;
  }

  /** The ready summary, taken: it is applied now, or dropped. */
  take(): Ready | undefined {
    const ready = this.ready;
    this.ready = undefined;
    return ready;
  }

  /** `summary` is no longer ready (it landed, or failed), unless another took its place. */
  done(summary: Ready): void {
    if (this.ready === summary) this.ready = undefined;
  }

  /** The after-turn bookkeeping (`settling` while it runs). */
  settle<T>(work: Promise<T>): Promise<T> {
    this.settling = work;
    return work.finally(() => {
      if (this.settling === work) this.settling = undefined;
    });
  }

  /** The write of the ready summary (`applying` while it runs). */
  apply<T>(write: Promise<T>): Promise<T> {
    this.applying = write;
    return write.finally(() => {
      if (this.applying === write) this.applying = undefined;
    });
  }

  /** A turn or call ended with `tokens` (and `messages`) in the thread's context: start, apply, or nothing. */
  ended(tokens: number, messages?: number): AfterDecision {
    return ended(this.schedule, this.rules, { state: this.state, tokens, messages, inFlight: this.inFlight });
  }

  /** A turn or call is about to start with `tokens` in its context (engine/scheduler.ts `starting`). */
  starting(tokens: number, messages?: number, startsHere = false): BeforeDecision {
    return starting(this.schedule, this.rules, { state: this.state, tokens, messages, startsHere });
  }

  /** Whether a context of `tokens` would pass the hard limit (the window at risk). */
  atRisk(tokens: number): boolean {
    return pastHardLimit(this.rules, tokens);
  }

  /** Whether a context of at most `tokens` is under the limit and the hard limit, whatever its messages. */
  surelyUnder(tokens: number): boolean {
    return !isOverLimit(this.rules, tokens) && !pastHardLimit(this.rules, tokens);
  }

  /** The thread is known to be under its limit without a count (its stored size proves it). */
  under(): void {
    this.schedule.overLimit = 0;
  }

  /** The window is at risk: a summary that could not usefully be written is tried again all the same. */
  retryNow(): void {
    this.schedule.retryAt = undefined;
  }

  /** A turn or call waited for the summary: the next `lateness` ones go on again. */
  waited(): void {
    waited(this.schedule);
  }

  /** A compaction landed: the count over the limit, the back-off and the breaker's failures start again. */
  landed(): void {
    landed(this.schedule);
    this.breaker.success(this.key);
  }

  /**
   * A summary was computed but could not usefully be written: no new one before the thread has grown by the margin
   * past `tokensAtStart`, so the summarizer is not called on every turn for nothing.
   */
  backOff(tokensAtStart: number): void {
    backOff(this.schedule, tokensAtStart, Math.floor(this.rules.tokenLimit * (1 - CEILING_SHARE)));
  }

  /**
   * Runs `run` (a prune of the thread) now, or once after the one running, however often it is asked meanwhile. Each
   * run is a promise of its own: what waits for one (flush()) does not wait for the prunes later turns ask for.
   * `started`: a run was started or queued for this ask (not folded into one queued already).
   */
  prune(run: () => Promise<void>): { pruning: Promise<void>; started: boolean } {
    if (this.nextPrune) return { pruning: this.nextPrune, started: false };
    const start = (): Promise<void> => {
      const pruning = run().finally(() => {
        if (this.pruning === pruning) this.pruning = undefined;
      });
      this.pruning = pruning;
      return pruning;
    };
    if (!this.pruning) return { pruning: start(), started: true };
    const next = this.pruning.then(() => {
      this.nextPrune = undefined;
      return start();
    });
    this.nextPrune = next;
    return { pruning: next, started: true };
  }

  /** A compaction failed: counted by the breaker; the pause it starts, if it starts one, to tell. */
  failed(error: unknown): CompactionError | undefined {
    return this.breaker.failure(this.key, error);
  }
}

/** Threads' compactions by key, created when missing; past `max`, the least recently used idle ones are forgotten. */
export class ThreadCompactions<Ready> {
  private readonly compactions = new Map<string, ThreadCompaction<Ready>>();

  constructor(
    private readonly max: number,
    private readonly create: (key: string) => ThreadCompaction<Ready>,
  ) {}

  of(key: string): ThreadCompaction<Ready> {
    let compaction = this.compactions.get(key);
    if (compaction) this.compactions.delete(key);
    else if (this.compactions.size >= this.max) this.evict();
    this.compactions.set(key, (compaction ??= this.create(key)));
    return compaction;
  }

  /** Resolves once no summary is in flight. */
  async idle(): Promise<void> {
    for (;;) {
      const running = [...this.compactions.values()].flatMap((compaction) => compaction.preparing ?? []);
      if (running.length === 0) return;
      await Promise.all(running);
    }
  }

  /** Drop the oldest tenth of the idle ones at once (a summary ready for a thread that never calls again goes too). */
  private evict(): void {
    let toDrop = Math.max(1, Math.floor(this.max / 10));
    for (const [key, compaction] of this.compactions) {
      if (toDrop === 0) break;
      if (compaction.preparing || compaction.applying || compaction.inFlight > 0) continue;
      this.compactions.delete(key);
      toDrop--;
    }
  }
}
