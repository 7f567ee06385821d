/**
 * The second process of the busy-thread bench: bare-graph turns on one thread every 100 ms, for a number of seconds.
 *   tsx scripts/bench/busy-writer.ts <sqlite:path | postgres:url:schema> <thread> <seconds>
 * Prints "ready" once connected, then "turns:<n> errors:<n>" when done.
 */
import "../../src/store/all-backends.js";
import { HumanMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { busyAgent, TURN_INTERVAL_MS, userTurn } from "./busy-agent.js";

const [store, threadId, seconds] = process.argv.slice(2);
let saver: BaseCheckpointSaver;
if (store!.startsWith("sqlite:")) {
  saver = SqliteSaver.fromConnString(store!.slice("sqlite:".length));
} else {
  const rest = store!.slice("postgres:".length);
  const cut = rest.lastIndexOf(":");
  saver = PostgresSaver.fromConnString(rest.slice(0, cut), { schema: rest.slice(cut + 1) });
}
const agent = busyAgent(saver);
console.log("ready");
const started = performance.now();
let turns = 0;
let errors = 0;
while (performance.now() - started < Number(seconds) * 1000) {
  const due = started + turns * TURN_INTERVAL_MS;
  if (due > performance.now()) await new Promise((resolve) => setTimeout(resolve, due - performance.now()));
  try {
    await agent.invoke(
      { messages: [new HumanMessage({ id: `other-${turns}`, content: userTurn("other", turns) })] },
      { configurable: { thread_id: threadId } },
    );
  } catch {
    errors++;
  }
  turns++;
}
console.log(`turns:${turns} errors:${errors}`);
if (saver instanceof SqliteSaver) saver.db.close();
else await (saver as PostgresSaver).end();
