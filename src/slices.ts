/**
 * How the library's CPU-heavy work shares the application's event loop (the one mechanism: docs/deploying.md,
 * "When compactions land"). Nothing of a compaction runs in one long stretch, and none of it is added to a stretch
 * of the graph's own:
 * - long loops are written as generators that yield between items, so the same code runs in one go (`drain`, for
 *   synchronous callers) or in slices that give the event loop back every SLICE_MS (`sliced`);
 * - between its phases (read, count, plan, summarize, write, transcript) a compaction lets the event loop turn over
 *   once (`turnOver`): timers, I/O and other requests run between them, and a phase never extends the stretch of the
 *   graph's own work (a checkpoint's read or write) that came right before it.
 */

/** How long a slice runs before the event loop gets a turn. */
export const SLICE_MS = 10;

/** Runs `steps` to the end in one go. */
export function drain<T>(steps: Generator<unknown, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Runs `steps` to the end, yielding to the event loop whenever a slice has run `sliceMs`. */
export async function sliced<T>(steps: Generator<unknown, T>, sliceMs = SLICE_MS): Promise<T> {
  let since = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - since >= sliceMs) {
      await new Promise((resolve) => setImmediate(resolve));
      since = performance.now();
    }
  }
}

/**
 * Resolves after one whole turn of the event loop: its timers, I/O and immediates run before what follows. Two
 * immediates: the first runs in this turn's check phase, the second in the next turn's, after its timers and I/O (one
 * immediate alone would let what follows run before the next timers). Costs microseconds on an idle loop.
 */
export function turnOver(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}
