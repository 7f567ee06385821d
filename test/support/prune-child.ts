/**
 * A process that prunes one thread of a Postgres store and kills itself (SIGKILL) at a named phase of the prune:
 *   node --import tsx test/support/prune-child.ts <postgres-url> <schema> <thread> <phase>
 * Phases: "prune:in-transaction" (the head checked), "prune:backfilled" (the transcript written), "prune:deleted"
 * (every delete run, before COMMIT). The phase is reported on stdout before the kill; no timer decides where it lands.
 */
import "../../src/store/all-backends.js";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { writeSync } from "node:fs";
import { pruneThread } from "../../src/engine/prune.js";
import { onPrunePhase } from "../../src/store/prune-writers.js";

const [url, schema, threadId, killAt] = process.argv.slice(2);
const saver = PostgresSaver.fromConnString(url!, { schema: schema! });
onPrunePhase((phase) => {
  writeSync(1, `step:${phase}\n`);
  if (phase === killAt) process.kill(process.pid, "SIGKILL");
});
const report = await pruneThread(saver, { configurable: { thread_id: threadId } }, { keep: 1 });
writeSync(1, `step:committed:${report.status}\n`);
await saver.end();
