/**
 * One process of the watcher that bench:fleet compares the pg-boss fleet with: the library's CompactionWorker as it
 * was before the fleet moved onto pg-boss (a lease table of its own, a poll loop over every thread), from the
 * checkout `--from` names (bench:fleet checks it out), on the store named by its arguments, by the protocol of
 * fleet-process.ts.
 *
 * Args: --from <checkout> --postgres <url> --schema <s> --limit <tokens> --latency <ms>
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Summarizer } from "../../src/summarizers/types.js";
import { args, delayed, saver, sayCompacted, serve } from "./fleet-process.js";

/** A module of the checkout's src/. */
const older = (path: string) => import(pathToFileURL(join(args.from!, "src", path)).href);
await older("store/all-backends.ts");
const { CompactionWorker } = (await older("runtimes/worker/compaction-worker.ts")) as {
  CompactionWorker: new (
    store: typeof saver,
    options: Record<string, unknown>,
  ) => { start(): void; stop(): Promise<void>; stats(): object };
};
const { ExtractiveSummarizer } = (await older("summarizers/extractive.ts")) as {
  ExtractiveSummarizer: new () => Summarizer;
};

// Its defaults then: one thread at a time, no host slots; a pass every 100 ms, as `compact-thread watch --poll 100`.
await serve(
  new CompactionWorker(saver, {
    trigger: { tokens: Number(args.limit) },
    idleMs: 0,
    pollMs: 100,
    env: {},
    summarizer: delayed(new ExtractiveSummarizer()),
    onOutcome: sayCompacted,
  }),
);
