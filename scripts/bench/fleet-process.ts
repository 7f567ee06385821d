/**
 * What every worker process of `npm run bench:fleet` shares (fleet-worker.ts, fleet-watcher.ts): its arguments, the
 * summarizer that waits `--latency` ms (a model's latency, not CPU) before an extractive summary, and the protocol —
 * `{"ready":true}` once loaded, a `go` line on stdin starts it and `{"started":true}` says so,
 * `{"compacted":<ms since the epoch>}` per compaction, `{"stats":…}` when SIGTERM stops it.
 *
 * Args: --postgres <url> --schema <s> --limit <tokens> --latency <ms> [--from <checkout>]
 */
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import type { Summarizer } from "../../src/summarizers/types.js";

export const { values: args } = parseArgs({
  options: {
    postgres: { type: "string" },
    schema: { type: "string" },
    limit: { type: "string" },
    latency: { type: "string" },
    from: { type: "string" },
  },
});

export const say = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);

/** `inner`, each summary after `--latency` ms. */
export function delayed(inner: Summarizer): Summarizer {
  const latency = Number(args.latency ?? 0);
  return {
    name: inner.name,
    maxTokens: inner.maxTokens,
    async summarize(input) {
      await new Promise((resolve) => setTimeout(resolve, latency));
      return inner.summarize(input);
    },
  };
}

/** The store the arguments name. */
export const saver = PostgresSaver.fromConnString(args.postgres!, { schema: args.schema! });

/** A worker's `onOutcome`: says each compaction. */
export const sayCompacted = (outcome: { status: string }) => {
  if (outcome.status === "compacted") say({ compacted: Date.now() });
};

/** Runs `worker` by the protocol: ready, started on `go`, its stats and the store closed on SIGTERM. */
export async function serve(worker: { start(): unknown; stop(): Promise<void>; stats(): object }): Promise<void> {
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
}
