/**
 * SIGINT and SIGTERM for `watch`, heard from the script's first line: a stop asked for before the worker has started
 * (the store still being opened, the modules still loading on a busy machine) ends the process at once, exit 0 —
 * nothing was taken or written yet; one asked for later stops the worker cleanly (compaction-worker.ts), exit 0.
 * Only Node's own start, before the script's first line runs, ends by the signal, as for any Node program. Other
 * commands keep the default (the signal ends them).
 */
const requested = new AbortController();
let listening = false;
let started = false;

/** Aborted once SIGINT or SIGTERM arrived after the worker started (after `listenForStop`). */
export const stopRequested: AbortSignal = requested.signal;

/** Hear SIGINT and SIGTERM from now on: before `workerStarted`, they end the process (exit 0); after, they abort `stopRequested`. */
export function listenForStop(): void {
  if (listening) return;
  listening = true;
  const stop = () => {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    if (!started) {
      process.stderr.write("compact-thread: stopped before watching began: nothing taken, nothing written\n");
      process.exit(0);
    }
    requested.abort();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

/** The worker takes threads from now on: a stop is the worker's clean stop, no longer an exit. */
export function workerStarted(): void {
  started = true;
}
