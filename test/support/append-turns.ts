/**
 * A separate process that appends user turns to a stored thread through the real team graph:
 *   node --import tsx test/support/append-turns.ts <sqlite-path | postgres-url> <thread> <count> <prefix> [schema]
 * Each user message has the id `<prefix>-<n>`, so a test can check every one of them afterwards.
 */
import { HumanMessage } from "@langchain/core/messages";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createTeam } from "./team.js";

const [location, threadId, count, prefix, schema] = process.argv.slice(2);
const postgres = location!.startsWith("postgres");
const saver = postgres ? PostgresSaver.fromConnString(location!, { schema: schema ?? "public" }) : SqliteSaver.fromConnString(location!);
if (!postgres) (saver as SqliteSaver).db.pragma("busy_timeout = 10000");
const team = createTeam(saver);
for (let index = 0; index < Number(count); index++) {
  await team.invoke(
    { messages: [new HumanMessage({ id: `${prefix}-${index}`, content: `${prefix} request ${index}: what are the Stripe fees for order ord_${index}?` })] },
    { configurable: { thread_id: threadId } },
  );
}
if (postgres) await (saver as PostgresSaver).end();
else (saver as SqliteSaver).db.close();
