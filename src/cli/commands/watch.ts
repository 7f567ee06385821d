import { CompactionWorker, type PassSummary, type ThreadOutcome } from "../../runtimes/worker/compaction-worker.js";
import { EXIT, exitCodeOf } from "../exit-codes.js";
import { countFlag, keepFlag, milliseconds, type CliContext, type ParsedOptions } from "../context.js";
import { bar, number } from "../format.js";
import { listenForStop, stopRequested, workerStarted } from "../stop-signal.js";

export const WATCH_HELP = `watch — keep the store's threads under the limit: each pass reads only the threads whose head changed,
compacts those over the limit whose head has not moved for --idle ms (busy and interrupted threads are left
alone), and prunes them with --keep. Workers on one Postgres (processes or machines) share the work: a lease per
thread, so no thread is compacted by two at once; on SQLite, workers of one host. Ctrl-C (SIGINT) or SIGTERM stops
taking threads, finishes the compaction in flight, gives its lease back and exits 0.

Usage: npx compact-thread watch (--db <file> | --postgres <url>) [--limit N] [--once] [--concurrency N]
                                [--host-concurrency N] [--idle MS] [--poll MS] [--keep N] [--summary-log L] [--json]

  --limit N          compact the threads holding more than N tokens (default: TOKEN_LIMIT, or 4000)
  --once             one pass, then exit (its failures set the exit code)
  --concurrency N    threads compacted at once (default 1)
  --host-concurrency N
                     compactions at once on this machine across the watch processes of this store (default:
                     no limit beyond --concurrency; the machine's cores is a good value for a fleet on one host)
  --idle MS          a thread is compacted once its head is this old (default 60000)
  --poll MS          pause between passes (default 5000; doubled after a store error, up to a minute)
  --keep N           after a compaction, prune the thread to its N newest checkpoints (default: keep all)
  --summary-log L    rewrite (a running summary, the default) or append (a log of segments), as the application's
                     summaryLog: a log compacted with rewrite becomes a running summary
  --json             one JSON line per thread compacted, skipped or failed, and one per pass

Examples:
  npx compact-thread watch --postgres "$POSTGRES_URL" --limit 32000 --concurrency 2
  npx compact-thread watch --db data/app.sqlite --once --idle 0 --json`;

export interface WatchSettings {
  once: boolean;
  concurrency: number;
  /** Compactions at once on this machine, across every watch process (default: the worker's, its cores). */
  hostConcurrency?: number;
  idleMs: number;
  pollMs: number;
  keep?: number;
}

/** The watch flags, checked before the store is opened (a bad flag writes nothing). */
export function watchSettings(options: ParsedOptions): WatchSettings {
  const keep = keepFlag(options.keep);
  const hostConcurrency = countFlag("--host-concurrency", options["host-concurrency"], "compactions");
  return {
    once: Boolean(options.once),
    concurrency: countFlag("--concurrency", options.concurrency, "threads") ?? 1,
    ...(hostConcurrency === undefined ? {} : { hostConcurrency }),
    idleMs: options.idle === undefined ? 60_000 : milliseconds("--idle", options.idle),
    pollMs: options.poll === undefined ? 5_000 : milliseconds("--poll", options.poll, 1),
    ...(keep === undefined ? {} : { keep }),
  };
}

function outcomeLine(outcome: ThreadOutcome): string {
  if (outcome.status === "compacted")
    return `${outcome.threadId}: compacted ${number(outcome.tokensBefore!)} → ${number(outcome.tokensAfter!)} tokens`;
  return `${outcome.threadId}: ${outcome.status} (${outcome.reason ?? "no reason"})`;
}

function passLine(pass: PassSummary): string {
  return `pass ${pass.pass}: ${pass.changed} changed, ${pass.headsRead} read, ${pass.candidates} over the limit and idle: ${pass.compacted} compacted, ${pass.skipped} skipped, ${pass.failed} failed${pass.superseded > 0 ? `, ${pass.superseded} earlier compaction(s) superseded by a run` : ""} (${Math.round(pass.ms)} ms)`;
}

export async function watchCommand(context: CliContext, settings: WatchSettings): Promise<number> {
  const { printer, json } = context;
  const tty = process.stderr.isTTY && !json;
  let candidates = 0;
  let done = 0;
  let firstFailure: unknown;
  const worker = new CompactionWorker(context.store.saver, {
    ...context.compaction,
    concurrency: settings.concurrency,
    ...(settings.hostConcurrency === undefined ? {} : { hostConcurrency: settings.hostConcurrency }),
    idleMs: settings.idleMs,
    pollMs: settings.pollMs,
    ...(settings.keep === undefined ? {} : { keepCheckpoints: settings.keep }),
    onCandidates: (count) => {
      candidates = count;
      done = 0;
    },
    onOutcome: (outcome) => {
      done++;
      if (outcome.status === "failed" && firstFailure === undefined) firstFailure = outcome.error;
      if (tty) process.stderr.write(`\r${bar(done, Math.max(1, candidates), 30)} ${done}/${candidates}  `);
      if (json) {
        const { error: _error, ...fields } = outcome;
        printer.line(JSON.stringify({ type: "thread", ...fields }));
      } else if (outcome.skip !== "under limit" && outcome.skip !== "leased") {
        // Counting a thread under the limit, or leaving one to the worker that holds it, is not news on a terminal.
        if (tty) process.stderr.write("\r\u001b[K");
        printer.line(outcomeLine(outcome));
      }
    },
    onPass: (pass) =>
      printer.line(json ? JSON.stringify({ type: "pass", ...pass, ms: Math.round(pass.ms) }) : passLine(pass)),
    onError: (error) =>
      process.stderr.write(
        `compact-thread: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}; trying again after a pause\n`,
      ),
  });
  if (settings.once) {
    // A store failure is thrown (one line, its exit code); a thread's failure sets the exit code once the pass is done.
    await worker.runOnce();
    if (firstFailure === undefined) return EXIT.ok;
    process.stderr.write(
      `compact-thread: ${firstFailure instanceof Error ? firstFailure.message.split("\n")[0] : String(firstFailure)}\n`,
    );
    return exitCodeOf(firstFailure);
  }
  // Until SIGINT or SIGTERM (heard from the script's first line; before this point they end the process: stop-signal.ts):
  // then no new thread is taken, the summary in flight is abandoned (nothing written) and its lease given back.
  listenForStop();
  await new Promise<void>((resolve) => {
    const stop = () => {
      if (!json) process.stderr.write("compact-thread: stopping; a summary in flight is abandoned, nothing written\n");
      void worker.stop().then(resolve);
    };
    if (stopRequested.aborted) return stop();
    stopRequested.addEventListener("abort", stop, { once: true });
    workerStarted();
    worker.start();
  });
  const stats = worker.stats();
  printer.line(
    json
      ? JSON.stringify({ type: "stopped", ...stats })
      : `stopped after ${stats.passes} pass(es): ${stats.compacted} compacted (${stats.superseded} of them superseded by a run), ${stats.errors} error(s)`,
  );
  return EXIT.ok;
}
