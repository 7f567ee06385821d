/**
 * A process that compacts one thread of a SQLite file and may be killed at any moment:
 *   node --import tsx test/support/compact-child.ts <sqlite-path> <thread> <summaryDelayMs> [killAt]
 * It writes each phase it reaches to stdout synchronously ("phase:<name>"), so the parent knows where a kill
 * landed. With `killAt` it sends itself SIGKILL on reaching that phase; "in-transaction" is inside the write's
 * SQLite transaction, after the INSERT and before COMMIT.
 */
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { writeSync } from "node:fs";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import { HistoryManager } from "../../src/history/history-manager.js";
import type { Summarizer } from "../../src/summarizers/types.js";

const [path, threadId, delay, killAt] = process.argv.slice(2);

function phase(name: string): void {
  writeSync(1, `phase:${name}\n`);
  if (name === killAt) process.kill(process.pid, "SIGKILL");
}

const saver = SqliteSaver.fromConnString(path!);
// Fault injection: observe the INSERT of the write transaction.
const prepare = saver.db.prepare.bind(saver.db);
saver.db.prepare = ((sql: string) => {
  const statement = prepare(sql);
  if (!/^\s*INSERT INTO checkpoints/i.test(sql)) return statement;
  const run = statement.run.bind(statement);
  statement.run = ((...args: unknown[]) => {
    const result = run(...(args as []));
    phase("in-transaction");
    return result;
  }) as typeof statement.run;
  return statement;
}) as typeof saver.db.prepare;

const extractive = new ExtractiveSummarizer();
const summarizer: Summarizer = {
  name: "slow-extractive",
  async summarize(input) {
    phase("summarizing");
    await new Promise((resolve) => setTimeout(resolve, Number(delay)));
    const text = await extractive.summarize(input);
    phase("summarized");
    return text;
  },
};
phase("started");
const manager = new HistoryManager({ checkpointer: saver, summarizer });
const report = await manager.compactThread({ configurable: { thread_id: threadId } }, { compactionRatio: 0.5 });
phase(`committed:${report.status}`);
saver.db.close();
phase("closed");
