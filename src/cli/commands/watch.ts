import { CompactionWorker, type RunOnceSummary, type ThreadOutcome } from "../../runtimes/worker/compaction-worker.js";
import { EXIT, exitCodeOf } from "../exit-codes.js";
import { countFlag, keepFlag, milliseconds, type CliContext, type ParsedOptions } from "../context.js";
import { number } from "../format.js";
import { listenForStop, stopRequested, workerStarted } from "../stop-signal.js";

export const WATCH_HELP = `watch — keep a Postgres store's threads under the limit, as jobs on pg-boss in the same database: a sweep
every --poll ms sends a job for each thread whose head changed; a job compacts its thread once its head has not
moved for --idle ms (busy and interrupted threads get their job again later) and prunes it with --keep. Start as
many watch processes, on as many machines, as you need: pg-boss runs one job per thread at a time and gives the job
of a worker that died to another. Ctrl-C (SIGINT) or SIGTERM stops taking jobs, abandons the summary in flight
(nothing written; its job goes back to the queue) and exits 0.

Usage: npx compact-thread watch --postgres <url> [--limit N] [--once] [--concurrency N] [--idle MS] [--poll MS]
                                [--keep N] [--summary-log L] [--json]

  --limit N          compact the threads holding more than N tokens (default: TOKEN_LIMIT, or 4000)
  --once             one sweep and the jobs due then, run here; then exit (its failures set the exit code)
  --concurrency N    jobs run at once by this process (default 1)
  --idle MS          a thread is compacted once its head is this old (default 60000)
  --poll MS          how often the store is swept for changed threads (default 5000, at least 50)
  --keep N           after a compaction, prune the thread to its N newest checkpoints (default: keep all)
  --summary-log L    rewrite (a running summary, the default) or append (a log of segments), as the application's
                     summaryLog: a log compacted with rewrite becomes a running summary
  --json             one JSON line per thread compacted, skipped or failed

Examples:
  npx compact-thread watch --postgres "$POSTGRES_URL" --limit 32000 --concurrency 2
  npx compact-thread watch --postgres "$POSTGRES_URL" --once --idle 0 --json`;

export interface WatchSettings {
  once: boolean;
  concurrency: number;
  idleMs: number;
  pollMs: number;
  keep?: number;
}

/** The watch flags, checked before the store is opened (a bad flag writes nothing). */
export function watchSettings(options: ParsedOptions): WatchSettings {
  const keep = keepFlag(options.keep);
  return {
    once: Boolean(options.once),
    concurrency: countFlag("--concurrency", options.concurrency, "jobs") ?? 1,
    idleMs: options.idle === undefined ? 60_000 : milliseconds("--idle", options.idle),
    pollMs: options.poll === undefined ? 5_000 : milliseconds("--poll", options.poll, 50),
    ...(keep === undefined ? {} : { keep }),
  };
}

function outcomeLine(outcome: ThreadOutcome): string {
  if (outcome.status === "compacted")
    return `${outcome.threadId}: compacted ${number(outcome.tokensBefore!)} → ${number(outcome.tokensAfter!)} tokens`;
  return `${outcome.threadId}: ${outcome.status} (${outcome.reason ?? "no reason"})`;
}

function onceLine(summary: RunOnceSummary): string {
  return `${summary.changed} thread(s) changed, ${summary.jobs} job(s) run: ${summary.compacted} compacted, ${summary.skipped} skipped, ${summary.failed} failed${summary.superseded > 0 ? `, ${summary.superseded} earlier compaction(s) superseded by a run` : ""} (${Math.round(summary.ms)} ms)`;
}

export async function watchCommand(context: CliContext, settings: WatchSettings): Promise<number> {
  const { printer, json } = context;
  let firstFailure: unknown;
  const worker = new CompactionWorker(context.store.saver, {
    ...context.compaction,
    concurrency: settings.concurrency,
    idleMs: settings.idleMs,
    pollMs: settings.pollMs,
    ...(settings.keep === undefined ? {} : { keepCheckpoints: settings.keep }),
    onOutcome: (outcome) => {
      if (outcome.status === "failed" && firstFailure === undefined) firstFailure = outcome.error;
      if (json) {
        const { error: _error, ...fields } = outcome;
        printer.line(JSON.stringify({ type: "thread", ...fields }));
      } else if (outcome.skip !== "under limit" && outcome.skip !== "not idle") {
        // A thread counted under the limit, or not idle yet, is not news on a terminal.
        printer.line(outcomeLine(outcome));
      }
    },
    onError: (error) =>
      process.stderr.write(
        `compact-thread: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}; going on\n`,
      ),
  });
  if (settings.once) {
    // A store failure is thrown (one line, its exit code); a thread's failure sets the exit code once the jobs are done.
    try {
      const summary = await worker.runOnce();
      printer.line(json ? JSON.stringify({ type: "once", ...summary, ms: Math.round(summary.ms) }) : onceLine(summary));
    } finally {
      await worker.stop();
    }
    if (firstFailure === undefined) return EXIT.ok;
    process.stderr.write(
      `compact-thread: ${firstFailure instanceof Error ? firstFailure.message.split("\n")[0] : String(firstFailure)}\n`,
    );
    return exitCodeOf(firstFailure);
  }
  // Until SIGINT or SIGTERM (heard from the script's first line; before this point they end the process: stop-signal.ts):
  // then no new job is taken, and the summary in flight is abandoned (nothing written; its job goes back to the queue).
  listenForStop();
  await worker.start();
  workerStarted();
  await new Promise<void>((resolve) => {
    const stop = () => {
      if (!json) process.stderr.write("compact-thread: stopping; a summary in flight is abandoned, nothing written\n");
      void worker.stop().then(resolve);
    };
    if (stopRequested.aborted) return stop();
    stopRequested.addEventListener("abort", stop, { once: true });
  });
  const stats = worker.stats();
  printer.line(
    json
      ? JSON.stringify({ type: "stopped", ...stats })
      : `stopped after ${stats.jobs} job(s): ${stats.compacted} compacted (${stats.superseded} of them superseded by a run), ${stats.errors} error(s)`,
  );
  return EXIT.ok;
}
