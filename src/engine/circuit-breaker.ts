/**
 * Per-thread circuit breaker for compaction: after `threshold` consecutive failures a thread's compaction pauses
 * for `pauseMs`; then one attempt is let through (half-open) and a failure pauses it again, a success closes it.
 * Holds at most `maxThreads` failing threads: past that, the oldest failure records are forgotten (a forgotten
 * thread simply starts counting its failures again).
 */
import { CompactionError } from "../errors.js";

/** After this many failed compactions of a thread in a row, its compaction pauses... */
export const FAILURE_THRESHOLD = 3;
/** ...for this long; then one attempt is let through (and a failure pauses it again). `resumeCompaction` lifts it. */
export const PAUSE_MS = 10 * 60_000;

export interface BreakerHealth {
  /** Failed compactions in a row (0 after a success). */
  consecutiveFailures: number;
  /** Set while compaction is paused for the thread. */
  pausedUntil?: Date;
  /** The last failure, if any since the last success. */
  lastError?: unknown;
}

interface State {
  failures: number;
  pausedUntil: number;
  lastError?: unknown;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class CircuitBreaker {
  private readonly states = new Map<string, State>();

  constructor(
    private readonly maxThreads: number = 10_000,
    private readonly threshold = FAILURE_THRESHOLD,
    private readonly pauseMs = PAUSE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** May a compaction of this thread run now? */
  allows(threadId: string): boolean {
    const state = this.states.get(threadId);
    return !state || state.pausedUntil <= this.now();
  }

  success(threadId: string): void {
    this.states.delete(threadId);
  }

  /** Records a failure; returns the COMPACTION_PAUSED error to announce when this failure opens the breaker. */
  failure(threadId: string, error: unknown): CompactionError | undefined {
    const state = this.states.get(threadId) ?? { failures: 0, pausedUntil: 0 };
    state.failures++;
    state.lastError = error;
    // Re-inserted so the map's order is the order of last failure; the oldest tenth goes at once when full.
    this.states.delete(threadId);
    if (this.states.size >= this.maxThreads) {
      let toDrop = Math.max(1, Math.floor(this.maxThreads / 10));
      for (const key of this.states.keys()) {
        if (toDrop-- === 0) break;
        this.states.delete(key);
      }
    }
    this.states.set(threadId, state);
    if (state.failures < this.threshold) return undefined;
    state.pausedUntil = this.now() + this.pauseMs;
    return new CompactionError({
      code: "COMPACTION_PAUSED",
      value: threadId,
      message:
        `compaction of thread ${JSON.stringify(threadId)} is paused until ${new Date(state.pausedUntil).toISOString()} after ` +
        `${state.failures} consecutive failures (last: ${describe(error)}); turns continue uncompacted. ` +
        `${fixOf(error)}, or call resumeCompaction(threadId).`,
      cause: error,
    });
  }

  health(threadId: string): BreakerHealth {
    const state = this.states.get(threadId);
    if (!state) return { consecutiveFailures: 0 };
    return {
      consecutiveFailures: state.failures,
      ...(state.pausedUntil > this.now() ? { pausedUntil: new Date(state.pausedUntil) } : {}),
      lastError: state.lastError,
    };
  }

  reset(threadId: string): void {
    this.states.delete(threadId);
  }
}

/** What to fix after `error`: the option it names, else the summarizer (what fails most). */
function fixOf(error: unknown): string {
  const parameter = CompactionError.isInstance(error) ? error.parameter : undefined;
  return parameter && parameter !== "summarizer"
    ? `Fix ${parameter}`
    : `Fix the summarizer, set fallbackSummarizer: "extractive"`;
}
