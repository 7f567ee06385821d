/**
 * One worker process of `npm run bench:fleet`: a CompactionWorker (jobs on pg-boss) on the store named by its
 * arguments, by the protocol of fleet-process.ts.
 *
 * Args: --postgres <url> --schema <s> --limit <tokens> --latency <ms>
 */
import "../../src/store/all-backends.js";
import { CompactionWorker } from "../../src/runtimes/worker/compaction-worker.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import { args, delayed, saver, sayCompacted, serve } from "./fleet-process.js";

await serve(
  new CompactionWorker(saver, {
    trigger: { tokens: Number(args.limit) },
    idleMs: 0,
    pollMs: 500,
    env: {},
    summarizer: delayed(new ExtractiveSummarizer()),
    onOutcome: sayCompacted,
  }),
);
