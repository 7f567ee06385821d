/**
 * One worker process of `npm run bench:fleet`: a CompactionWorker on the store named by its arguments. It makes a
 * first pass (every head read), prints `{"scanned":…}`, waits for a line on stdin, then passes until a pass finds
 * nothing left to compact, prints `{"done":…}` with its counters, its CPU time and its log of lease takes, makes one
 * more pass (nothing changed) and prints `{"idle":…}`.
 *
 * Args: (--postgres <url> --schema <s> | --db <file>) --limit <tokens>
 */
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { CompactionWorker } from "../../src/runtimes/worker/compaction-worker.js";

const { values } = parseArgs({ options: { postgres: { type: "string" }, schema: { type: "string" }, db: { type: "string" }, limit: { type: "string" } } });
const saver = values.db ? SqliteSaver.fromConnString(values.db) : PostgresSaver.fromConnString(values.postgres!, { schema: values.schema! });
// An idle connection the server drops (a restart) is an error event on the pool: the next query reconnects.
if (!("db" in saver)) (saver as unknown as { pool: { on(event: "error", listener: () => void): void } }).pool.on("error", () => undefined);
const leases: Array<[string, "taken" | "released", number]> = [];
const worker = new CompactionWorker(saver, {
  tokenLimit: Number(values.limit),
  idleMs: 0,
  env: {},
  // Microsecond times: a take and its release often fall in one millisecond.
  onLease: ({ threadId, event }) => void leases.push([threadId, event, performance.timeOrigin + performance.now()]),
});
const say = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);

const scanStarted = performance.now();
const first = await worker.runOnce();
say({ scanned: { ms: performance.now() - scanStarted, headsRead: first.headsRead } });
await new Promise<void>((resolve) => {
  const input = createInterface({ input: process.stdin });
  input.once("line", () => {
    input.close();
    resolve();
  });
});

const cpu = process.cpuUsage();
const started = Date.now();
let passes = 0;
for (;;) {
  const pass = await worker.runOnce();
  passes++;
  // Done when nothing is left over the limit (threads other workers hold are candidates until they are done).
  if (pass.candidates === 0) break;
}
const ended = Date.now();
const used = process.cpuUsage(cpu);
say({ done: { started, ended, passes, cpuMs: (used.user + used.system) / 1000, stats: worker.stats(), leases } });
const idle = await worker.runOnce();
say({ idle: { ms: idle.ms, headsRead: idle.headsRead, changed: idle.changed } });
if ("end" in saver) await saver.end();
else saver.db.close();
