/**
 * The summarizer's long loops are written as generators that yield between items, so the same code runs in one go
 * (`drain`, for synchronous callers) or in slices that give the event loop back every SLICE_MS (`sliced`): on the
 * application's thread, where no worker is used, a long segment never stalls it for the whole summary.
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
