/**
 * SIGINT and SIGTERM for `watch`, heard from the process's first moment: a stop asked for while the store is still
 * being opened (the first seconds of a start) is a clean stop, exit 0, as one asked for later is — not a kill by
 * signal. Other commands keep the default (the signal ends them).
 */
const requested = new AbortController();
let listening = false;

/** Aborted once SIGINT or SIGTERM arrived (after `listenForStop`). */
export const stopRequested: AbortSignal = requested.signal;

/** Hear SIGINT and SIGTERM from now on: they abort `stopRequested` instead of ending the process. */
export function listenForStop(): void {
  if (listening) return;
  listening = true;
  const stop = () => {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    requested.abort();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
