/**
 * A process that runs turns through CompactingSupervisor with the defaults on a SQLite file, flushes, and then
 * simply ends its script — no close, no exit call:
 *   node test/support/exit-child.ts <sqlite-path> <thread> <max-turns>
 * Turns go on until a turn has seen a landed summary (or max-turns). Prints one JSON line:
 * { compactions, errors, sawSummary, turns }. The process must then exit on its own.
 */
import "../../src/store/all-backends.js";
import { HumanMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { isSummaryMessage } from "../../src/messages/summary-message.js";
import { createTeam } from "./team.js";

const [path, threadId, turns] = process.argv.slice(2);
const saver = SqliteSaver.fromConnString(path!);
let compactions = 0;
const errors: string[] = [];
const supervisor = new CompactingSupervisor(createTeam(saver), {
  trigger: { tokens: 900 },
  env: {},
  onCompaction: (report) => void (report.status === "compacted" && compactions++),
  onCompactionError: (error) => void errors.push(String((error as Error).message)),
});
let sawSummary = false;
let index = 0;
for (; index < Number(turns) && !sawSummary; index++) {
  const result = await supervisor.invoke(
    {
      messages: [
        new HumanMessage({
          id: `exit-${index}`,
          content: `request ${index}: what are the Stripe fees for order ord_${index}?`,
        }),
      ],
    },
    { configurable: { thread_id: threadId } },
  );
  sawSummary = compactions > 0 && result.messages.some((message) => isSummaryMessage(message));
  // The compaction a turn started ends before the next turn: a signal decides, not a clock.
  await supervisor.flush();
}
await supervisor.flush();
process.stdout.write(`${JSON.stringify({ compactions, errors, sawSummary, turns: index })}\n`);
