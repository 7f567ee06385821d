/**
 * One process of the watcher that bench:fleet compares the pg-boss fleet with: the library's CompactionWorker as it
 * was before the fleet moved onto pg-boss (a lease table of its own, a poll loop over every thread; the commit
 * `--from` holds, checked out by bench:fleet), on the store named by its arguments, with the summarizer of
 * fleet-worker.ts (it waits `--latency` ms, then summarizes extractively). The same protocol as fleet-worker.ts:
 * `{"ready":true}` once loaded, a `go` line on stdin starts it, `{"compacted":<ms since the epoch>}` per compaction,
 * `{"stats":…}` when SIGTERM stops it.
 *
 * Args: --from <checkout> --postgres <url> --schema <s> --limit <tokens> --latency <ms>
 */
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type { Summarizer } from "../../src/summarizers/types.js";

const { values } = parseArgs({
  options: {
    from: { type: "string" },
    postgres: { type: "string" },
    schema: { type: "string" },
    limit: { type: "string" },
    latency: { type: "string" },
  },
});
/** A module of the checkout's src/. */
const older = (path: string) => import(pathToFileURL(join(values.from!, "src", path)).href);
await older("store/all-backends.ts");
const { CompactionWorker } = (await older("runtimes/worker/compaction-worker.ts")) as {
  CompactionWorker: new (
    saver: PostgresSaver,
    options: Record<string, unknown>,
  ) => { start(): void; stop(): Promise<void>; stats(): object };
};
const { ExtractiveSummarizer } = (await older("summarizers/extractive.ts")) as {
  ExtractiveSummarizer: new () => Summarizer;
};

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
// Its defaults then: one thread at a time, no host slots; a pass every 100 ms, as `compact-thread watch --poll 100`.
const worker = new CompactionWorker(saver, {
  trigger: { tokens: Number(values.limit) },
  idleMs: 0,
  pollMs: 100,
  env: {},
  summarizer,
  onOutcome: (outcome: { status: string }) => {
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
worker.start();
say({ started: true });
