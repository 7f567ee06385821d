/**
 * The one retry loop of the library's writes. A write is tried against the head it read; it either ends (`done`),
 * lost a race to a turn or another writer that moved the head (`again`: tried again at once, `attempts` tries in
 * all), or found the head busy with a run (`wait`: tried again after a pause, 10 ms doubling to 250 ms or
 * `longestPauseMs`, until `waitMs` has passed or `signal` aborted). When no try is left, the last try's value is the
 * result.
 */
export type Attempt<T> = { done: T } | { again: T } | { wait: T };

export interface RetryPolicy {
  /** Tries in all for a lost race. */
  attempts: number;
  /** How long a busy head is waited for (ms); 0: not at all. @default 0 */
  waitMs?: number;
  /** The longest pause between two looks at a busy head (ms). @default 250 */
  longestPauseMs?: number;
  /** Stops the waiting when it aborts: the last try's value is the result. */
  signal?: AbortSignal | undefined;
}

/** First and longest pause between two looks at a busy head. */
const FIRST_WAIT_MS = 10;
const LONGEST_WAIT_MS = 250;

/** Runs `attempt` (numbered from 1) until it is done or `policy` allows no other try; returns its last value. */
export async function retrying<T>(policy: RetryPolicy, attempt: (number: number) => Promise<Attempt<T>>): Promise<T> {
  const deadline = performance.now() + (policy.waitMs ?? 0);
  let pause = FIRST_WAIT_MS;
  for (let number = 1; ; number++) {
    const outcome = await attempt(number);
    if ("done" in outcome) return outcome.done;
    if ("again" in outcome) {
      if (number >= policy.attempts) return outcome.again;
      continue;
    }
    const remaining = deadline - performance.now();
    if (remaining <= 0 || policy.signal?.aborted) return outcome.wait;
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause, remaining)));
    pause = Math.min(pause * 2, policy.longestPauseMs ?? LONGEST_WAIT_MS);
  }
}
