/**
 * A worker process (CompactionWorker on Postgres) that may be killed at a phase of a compaction:
 *   node worker-child.ts <postgres-url> <schema> <limit> <leaseMs> <killAt|pause|-> <application-name>
 * It prints each phase it reaches on stdout synchronously: "leased" (its lease taken), "summarizing" (the summary
 * started), "summarized", then "outcome:<status>" per thread and "pass" when the pass ends. With `killAt` a phase, it
 * sends itself SIGKILL on reaching it; with `pause`, it waits at "summarizing" for a line on stdin (the parent cuts
 * its database connections meanwhile). No timer decides where a kill lands.
 */
import "../../src/store/all-backends.js";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { writeSync } from "node:fs";
import { createInterface } from "node:readline";
import { CompactionWorker } from "../../src/runtimes/worker/compaction-worker.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import type { Summarizer } from "../../src/summarizers/types.js";

const [url, schema, limit, leaseMs, killAt = "-", applicationName = "worker-child"] = process.argv.slice(2);

function step(name: string): void {
  writeSync(1, `${name}\n`);
  if (name === killAt) process.kill(process.pid, "SIGKILL");
}

const waitForParent = () =>
  new Promise<void>((resolve) => {
    const input = createInterface({ input: process.stdin });
    input.once("line", () => {
      input.close();
      resolve();
    });
  });

const inner = new ExtractiveSummarizer();
const summarizer: Summarizer = {
  name: inner.name,
  maxTokens: inner.maxTokens,
  async summarize(input) {
    step("summarizing");
    if (killAt === "pause") await waitForParent();
    const text = await inner.summarize(input);
    step("summarized");
    return text;
  },
};

// Named, so the parent can cut this process's connections and no other's.
const named = new URL(url!);
named.searchParams.set("application_name", applicationName);
const saver = PostgresSaver.fromConnString(named.toString(), { schema: schema! });
// Its connections are cut on purpose: an idle one's error must not end the process.
(saver as unknown as { pool: { on(event: "error", listener: () => void): void } }).pool.on("error", () => undefined);
const worker = new CompactionWorker(saver, {
  trigger: { tokens: Number(limit) },
  idleMs: 0,
  leaseMs: Number(leaseMs),
  env: {},
  summarizer,
  onLease: ({ event }) => event === "taken" && step("leased"),
  onOutcome: (outcome) => step(`outcome:${outcome.status}:${outcome.reason ?? ""}`.split("\n")[0]!),
});
try {
  await worker.runOnce();
  step("pass");
} catch (error) {
  step(`pass-failed:${(error as { code?: string }).code ?? "?"}`);
} finally {
  await saver.end();
}
