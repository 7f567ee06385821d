/**
 * One worker process of `npm run bench:fleet`: a CompactionWorker on the store named by its arguments. It makes a
 * first pass (every head read) and prints `{"scanned":…}`. Then, for every `go` line on stdin, it passes until a
 * pass finds nothing left to compact and prints `{"done":…}` with its counters, its CPU time, when its last
 * compaction was written and its log of lease takes for that round. On `end`, it makes one more pass (nothing changed), prints `{"idle":…}` and exits.
 *
 * Args: (--postgres <url> --schema <s> | --db <file>) --limit <tokens> [--idle <ms>] [--free (no host slots)]
 */
import "../../src/store/all-backends.js";
import { availableParallelism } from "node:os";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { CompactionWorker } from "../../src/runtimes/worker/compaction-worker.js";

const { values } = parseArgs({
  options: {
    postgres: { type: "string" },
    schema: { type: "string" },
    db: { type: "string" },
    limit: { type: "string" },
    idle: { type: "string" },
    free: { type: "boolean" },
  },
});
const saver = values.db
  ? SqliteSaver.fromConnString(values.db)
  : PostgresSaver.fromConnString(values.postgres!, { schema: values.schema! });
// An idle connection the server drops (a restart) is an error event on the pool: the next query reconnects.
if (!("db" in saver))
  (saver as unknown as { pool: { on(event: "error", listener: () => void): void } }).pool.on("error", () => undefined);
let leases: Array<[string, "taken" | "released", number]> = [];
/** When this worker's last compaction of the round was written (ms since the epoch). */
let lastCompacted: number | undefined;
const worker = new CompactionWorker(saver, {
  trigger: { tokens: Number(values.limit) },
  idleMs: Number(values.idle ?? 0),
  env: {},
  // The fleet shares the machine's cores through the store's host slots, unless "free".
  hostConcurrency: values.free ? false : availableParallelism(),
  // Microsecond times: a take and its release often fall in one millisecond.
  onOutcome: (outcome) => {
    if (outcome.status === "compacted") lastCompacted = Date.now();
  },
  onLease: ({ threadId, event }) => void leases.push([threadId, event, performance.timeOrigin + performance.now()]),
});
const say = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);

const scanStarted = performance.now();
const first = await worker.runOnce();
say({ scanned: { ms: performance.now() - scanStarted, headsRead: first.headsRead } });
leases = [];

for await (const line of createInterface({ input: process.stdin })) {
  if (line !== "go") break;
  const before = worker.stats();
  const cpu = process.cpuUsage();
  const switches = process.resourceUsage().involuntaryContextSwitches;
  const started = Date.now();
  lastCompacted = undefined;
  let passes = 0;
  for (;;) {
    const pass = await worker.runOnce();
    passes++;
    // Done when nothing is left over the limit (threads other workers hold are candidates until they are done).
    if (pass.candidates === 0) break;
    // Only threads other workers hold: they are done soon; a short pause rather than passes back to back.
    if (pass.compacted === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const ended = Date.now();
  const used = process.cpuUsage(cpu);
  const stats = worker.stats();
  say({
    done: {
      started,
      ended,
      lastCompacted,
      passes,
      cpuMs: (used.user + used.system) / 1000,
      preempted: process.resourceUsage().involuntaryContextSwitches - switches,
      stats: {
        compacted: stats.compacted - before.compacted,
        conflicts: stats.conflicts - before.conflicts,
        errors: stats.errors - before.errors,
        headsRead: stats.headsRead - before.headsRead,
      },
      leases,
    },
  });
  leases = [];
}
const idle = await worker.runOnce();
say({ idle: { ms: idle.ms, headsRead: idle.headsRead, changed: idle.changed } });
if ("end" in saver) await saver.end();
else saver.db.close();
