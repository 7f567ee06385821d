/**
 * A fleet worker process (CompactionWorker on Postgres, jobs on pg-boss), run until SIGTERM:
 *   node worker-child.ts <postgres-url> <schema> <limit> <mode: kill|kill:N|hang|-> <name>
 * It prints one line per event on stdout, synchronously: `job-start <thread> <job id> <ms>`, `job-end <thread> <job id>
 * <ms> <status>`, `summarizing <thread>`, `outcome <thread> <status>`, `stopped`. With `kill`, it sends itself
 * SIGKILL when its first summary starts (`kill:N`: its Nth); with `hang`, its first summary never ends (the parent
 * sends SIGTERM then).
 * No timer decides where a kill lands.
 */
import "../../src/store/all-backends.js";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { writeSync } from "node:fs";
import { CompactionWorker } from "../../src/runtimes/worker/compaction-worker.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import type { Summarizer } from "../../src/summarizers/types.js";

const [url, schema, limit, mode = "-", name = "worker"] = process.argv.slice(2);

const line = (text: string) => writeSync(1, `${text}\n`);

let summaries = 0;
const inner = new ExtractiveSummarizer();
const summarizer: Summarizer = {
  name: inner.name,
  maxTokens: inner.maxTokens,
  async summarize(input) {
    const first = summaries++ === 0;
    line(`summarizing ${name}`);
    if (mode === "kill" ? first : mode.startsWith("kill:") && summaries === Number(mode.slice(5)))
      process.kill(process.pid, "SIGKILL");
    if (first && mode === "hang")
      await new Promise((_resolve, reject) =>
        input.signal?.addEventListener("abort", () => reject(new Error("abandoned")), { once: true }),
      );
    return inner.summarize(input);
  },
};

const saver = PostgresSaver.fromConnString(url!, { schema: schema! });
const worker = new CompactionWorker(saver, {
  trigger: { tokens: Number(limit) },
  idleMs: 0,
  pollMs: 500,
  concurrency: 2,
  jobTimeoutMs: 8_000,
  env: {},
  summarizer,
  onJob: ({ threadId, jobId, event, status }) =>
    line(
      `job-${event === "started" ? "start" : "end"} ${threadId} ${jobId} ${Date.now()}${status ? ` ${status}` : ""}`,
    ),
  onOutcome: (outcome) => line(`outcome ${outcome.threadId} ${outcome.status}`),
  onError: (error) => line(`error ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`),
});
process.once("SIGTERM", () => {
  void worker
    .stop()
    .then(() => saver.end())
    .then(() => {
      line("stopped");
      process.exit(0);
    });
});
await worker.start();
line("started");
