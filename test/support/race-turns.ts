/**
 * A process running user turns on a shared thread through CompactingSupervisor (background compaction on):
 *   node --import tsx test/support/race-turns.ts <sqlite-path | postgres-url> <thread> <count> <prefix> <lock-dir> [schema]
 * LangGraph does not serialize two runs of one thread, so the turn processes take turns through a lock directory
 * (as a deployment would through its run queue); the compactions — each process's background ones and the
 * script's — take no lock and race with everything. User message ids are `<prefix>-<n>`.
 * Prints one JSON line: { turns, compactions, compactionErrors }.
 */
import { HumanMessage } from "@langchain/core/messages";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { mkdirSync, rmdirSync } from "node:fs";
import { createTeam } from "../../scripts/demo/team.js";
import { CompactingSupervisor } from "../../src/supervisor/compacting-supervisor.js";

const [location, threadId, count, prefix, lockDir, schema] = process.argv.slice(2);
const postgres = location!.startsWith("postgres");
const saver = postgres ? PostgresSaver.fromConnString(location!, { schema: schema ?? "public" }) : SqliteSaver.fromConnString(location!);
if (!postgres) (saver as SqliteSaver).db.pragma("busy_timeout = 10000");

async function withTurnLock<T>(run: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      mkdirSync(lockDir!);
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 2 + Math.random() * 5));
    }
  }
  try {
    return await run();
  } finally {
    rmdirSync(lockDir!);
  }
}

let compactions = 0;
const errors: string[] = [];
const supervisor = new CompactingSupervisor(createTeam(saver), {
  tokenLimit: 1_200,
  background: true,
  circuitBreaker: false,
  onCompaction: () => void compactions++,
  onCompactionError: (error) => void errors.push(String((error as Error).message ?? error)),
});
for (let index = 0; index < Number(count); index++) {
  await withTurnLock(() =>
    supervisor.invoke(
      { messages: [new HumanMessage({ id: `${prefix}-${index}`, content: `${prefix} request ${index}: what are the Stripe fees for order ord_${index}?` })] },
      { configurable: { thread_id: threadId } },
    ),
  );
  // Let this process's background compaction overlap the other process's next turn.
  await new Promise((resolve) => setTimeout(resolve, Math.random() * 10));
}
await supervisor.flush();
process.stdout.write(`${JSON.stringify({ turns: Number(count), compactions, compactionErrors: errors })}\n`);
if (postgres) await (saver as PostgresSaver).end();
else (saver as SqliteSaver).db.close();
