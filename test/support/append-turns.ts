/**
 * A separate process that appends user turns to a stored thread through the real team graph:
 *   node --import tsx test/support/append-turns.ts <sqlite-path | postgres-url> <thread> <count> <prefix> [schema]
 * Each user message has the id `<prefix>-<n>`, so a test can check every one of them afterwards.
 * With APPEND_GATE=<dir>:<n>, the process writes `<dir>/waiting` after its n-th turn and waits for `<dir>/open` before
 * the next, so a test can act on a thread it knows is idle, then let the turns go on.
 */
import "../../src/store/all-backends.js";
import { HumanMessage } from "@langchain/core/messages";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createTeam } from "./team.js";

const [location, threadId, count, prefix, schema] = process.argv.slice(2);
const postgres = location!.startsWith("postgres");
const saver = postgres
  ? PostgresSaver.fromConnString(location!, { schema: schema ?? "public" })
  : SqliteSaver.fromConnString(location!);
if (!postgres) (saver as SqliteSaver).db.pragma("busy_timeout = 10000");
const team = createTeam(saver);
const [, gateDir, gateAt] = /^(.*):(\d+)$/.exec(process.env.APPEND_GATE ?? "") ?? [];
for (let index = 0; index < Number(count); index++) {
  if (gateDir && index === Number(gateAt)) {
    writeFileSync(join(gateDir, "waiting"), "");
    while (!existsSync(join(gateDir, "open"))) await sleep(20);
  }
  await team.invoke(
    {
      messages: [
        new HumanMessage({
          id: `${prefix}-${index}`,
          content: `${prefix} request ${index}: what are the Stripe fees for order ord_${index}?`,
        }),
      ],
    },
    { configurable: { thread_id: threadId } },
  );
}
if (postgres) await (saver as PostgresSaver).end();
else (saver as SqliteSaver).db.close();
