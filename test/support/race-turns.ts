/**
 * A process running user turns on a shared thread through CompactingSupervisor (background compaction on):
 *   node --import tsx test/support/race-turns.ts <sqlite-path | postgres-url> <thread> <count> <prefix> <lock-dir> [schema]
 * LangGraph does not serialize two runs of one thread, so the turn processes take turns through a lock directory
 * (as a deployment would through its run queue); the compactions — each process's background ones and the
 * script's — take no lock and race with everything. User message ids are `<prefix>-<n>`.
 * Every summary of this process is held until a turn (of either process) has ended after it began — counted in a
 * file beside the lock — so it is applied to a thread that grew meanwhile: by a rebase, or not at all (a conflict)
 * when another compaction changed the summarized prefix first. Never by timing: the signal is the turn count.
 * Prints one JSON line: { turns, compactions, rebased, conflicts, compactionErrors }.
 */
import "../../src/store/all-backends.js";
import { HumanMessage } from "@langchain/core/messages";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { createTeam } from "./team.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import type { Summarizer } from "../../src/summarizers/types.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { createRandom } from "../../scripts/workload/random.js";

const [location, threadId, count, prefix, lockDir, schema] = process.argv.slice(2);
const postgres = location!.startsWith("postgres");
// The jitter between turns is seeded (RACE_SEED, and the writer's prefix), so a failing interleaving's inputs repeat.
const random = createRandom(
  Number(process.env.RACE_SEED ?? 20261123) + [...prefix!].reduce((sum, char) => sum * 31 + char.charCodeAt(0), 0),
);
const saver = postgres
  ? PostgresSaver.fromConnString(location!, { schema: schema ?? "public" })
  : SqliteSaver.fromConnString(location!);
if (!postgres) (saver as SqliteSaver).db.pragma("busy_timeout = 10000");

async function withTurnLock<T>(run: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      mkdirSync(lockDir!);
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 2 + random.next() * 5));
    }
  }
  try {
    return await run();
  } finally {
    // Turns ended so far, by any process (written under the lock).
    writeFileSync(turnsFile, String(turnsEnded() + 1));
    rmdirSync(lockDir!);
  }
}

const turnsFile = `${lockDir}.turns`;
function turnsEnded(): number {
  try {
    return Number(readFileSync(turnsFile, "utf8")) || 0;
  } catch {
    return 0;
  }
}

let finished = false;
const extractive = new ExtractiveSummarizer();
const heldUntilGrown: Summarizer = {
  name: "extractive-held",
  async summarize(input) {
    const before = turnsEnded();
    const summary = await extractive.summarize(input);
    while (turnsEnded() === before && !finished) await new Promise((resolve) => setTimeout(resolve, 5));
    return summary;
  },
};

let compactions = 0;
let rebased = 0;
let conflicts = 0;
const errors: string[] = [];
const supervisor = new CompactingSupervisor(createTeam(saver), {
  trigger: { tokens: 1_200 },
  background: true,
  // The summaries here finish only once another turn has ended, which a turn of this process waiting for its own
  // summary (past the bound on lateness) would hold up while it holds the turn lock: no turn ever waits for one.
  lateness: 1_000_000,
  summarizer: heldUntilGrown,
  onCompaction: (report) => {
    if (report.status === "compacted") compactions++;
    if (report.status === "compacted" && report.rebased) rebased++;
    if (report.status === "conflict") conflicts++;
  },
  onCompactionError: (error) => void errors.push(String((error as Error).message ?? error)),
});
for (let index = 0; index < Number(count); index++) {
  await withTurnLock(() =>
    supervisor.invoke(
      {
        messages: [
          new HumanMessage({
            id: `${prefix}-${index}`,
            content: `${prefix} request ${index}: what are the Stripe fees for order ord_${index}?`,
          }),
        ],
      },
      { configurable: { thread_id: threadId } },
    ),
  );
  // Let this process's background compaction overlap the other process's next turn.
  await new Promise((resolve) => setTimeout(resolve, random.next() * 10));
}
finished = true;
await supervisor.flush();
process.stdout.write(
  `${JSON.stringify({ turns: Number(count), compactions, rebased, conflicts, compactionErrors: errors })}\n`,
);
if (postgres) await (saver as PostgresSaver).end();
else (saver as SqliteSaver).db.close();
