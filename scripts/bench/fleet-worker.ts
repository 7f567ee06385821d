/**
 * One worker process of `npm run bench:fleet`: a CompactionWorker (jobs on pg-boss) on the store named by its
 * arguments, with a summarizer that waits `--latency` ms (a model's latency, not CPU) before the extractive summary.
 * It prints `{"ready":true}` once loaded, starts on a `go` line on stdin and prints `{"started":true}`, then
 * `{"compacted":<ms since the epoch>}` per compaction, and `{"stats":…}` when SIGTERM stops it.
 *
 * Args: --postgres <url> --schema <s> --limit <tokens> --latency <ms>
 */
import "../../src/store/all-backends.js";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { CompactionWorker } from "../../src/runtimes/worker/compaction-worker.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import type { Summarizer } from "../../src/summarizers/types.js";

const { values } = parseArgs({
  options: {
    postgres: { type: "string" },
    schema: { type: "string" },
    limit: { type: "string" },
    latency: { type: "string" },
  },
});
const say = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
const inner = new ExtractiveSummarizer();
const latency = Number(values.latency ?? 0);
const summarizer: Summarizer = {
  name: inner.name,
  maxTokens: inner.maxTokens,
  async summarize(input) {
    await new Promise((resolve) => setTimeout(resolve, latency));
    return inner.summarize(input);
  },
};
const saver = PostgresSaver.fromConnString(values.postgres!, { schema: values.schema! });
const worker = new CompactionWorker(saver, {
  trigger: { tokens: Number(values.limit) },
  idleMs: 0,
  pollMs: 500,
  env: {},
  summarizer,
  onOutcome: (outcome) => {
    if (outcome.status === "compacted") say({ compacted: Date.now() });
  },
});
process.once("SIGTERM", () => {
  void worker.stop().then(async () => {
    say({ stats: worker.stats() });
    await saver.end();
    process.exit(0);
  });
});
say({ ready: true });
const input = createInterface({ input: process.stdin });
await new Promise<void>((resolve) => input.once("line", () => resolve()));
input.close();
await worker.start();
say({ started: true });
