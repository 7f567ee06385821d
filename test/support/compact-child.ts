/**
 * A process that compacts one thread of a SQLite file and may be killed at any step:
 *   node --import tsx test/support/compact-child.ts <sqlite-path> <thread> [killAt|-] [plain|rebase|prune|log]
 * It writes each step it reaches to stdout synchronously, so the parent knows where a kill landed, and with
 * `killAt` it sends itself SIGKILL on reaching that step — no timer decides where a kill lands, so a loaded machine
 * runs the same schedule. Steps:
 * - phases: "started", "summarizing", "summarized", with `rebase` "appended" (a turn landed on the thread after the
 *   summary, so the write is a rebase), "in-transaction" (inside the write's SQLite transaction, after
 *   the checkpoint INSERT, before COMMIT), "in-transaction:recall" (after the first row of the recall index),
 *   "committed:<status>";
 * - with mode `log` (the summary as a log, `summaryLog: "append"`): "summarizing" and "summarized" around the new
 *   segment, and "reflecting" and "reflected" around a reflection of the older segments, when the log passes its
 *   budget;
 * - with mode `prune` (a prune keeping the head only, instead of a compaction): "prune:in-transaction" (the head
 *   checked), "prune:backfilled" (the transcript written), "prune:deleted" (before COMMIT), "committed:<status>";
 * - "sql:<n>": the n-th SQL statement the child runs after "started" (reads, the transaction's statements, every
 *   row of the recall index), reported only when it is the kill point. A run without `killAt` ends with
 *   "steps:<n>", the count a parent draws kill points from.
 */
import "../../src/store/all-backends.js";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import type { Statement } from "better-sqlite3";
import { writeSync } from "node:fs";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { pruneThread } from "../../src/engine/prune.js";
import { onPrunePhase } from "../../src/store/prune-writers.js";
import type { Summarizer } from "../../src/summarizers/types.js";
import { HumanMessage } from "@langchain/core/messages";
import { createTestAgent } from "./agents.js";

const [path, threadId, killArg = "-", mode = "plain"] = process.argv.slice(2);
const killAt = killArg === "-" ? undefined : killArg;

let started = false;
let statements = 0;
let recallRows = 0;

/** Writes `line` to stdout, waiting out a full pipe (EAGAIN) rather than failing: the parent may be slow to read. */
function say(line: string): void {
  for (;;) {
    try {
      writeSync(1, line);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
    }
  }
}

/** Reports a phase (every one) or a statement (only the one it is killed at), and kills itself at `killAt`. */
function step(name: string): void {
  const isStatement = name.startsWith("sql:");
  if (!isStatement || name === killAt) say(`step:${name}\n`);
  if (name === killAt) process.kill(process.pid, "SIGKILL");
}

const saver = SqliteSaver.fromConnString(path!);
// Fault injection: observe every statement the compaction runs.
const prepare = saver.db.prepare.bind(saver.db);
saver.db.prepare = ((sql: string) => {
  const statement = prepare(sql) as Statement;
  for (const method of ["run", "get", "all"] as const) {
    const original = (statement[method] as (...args: unknown[]) => unknown).bind(statement);
    (statement as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      const result = original(...args);
      if (started) step(`sql:${++statements}`);
      if (/^\s*INSERT INTO checkpoints/i.test(sql)) step("in-transaction");
      if (/^\s*INSERT INTO compaction_recall\b/i.test(sql) && ++recallRows === 1) step("in-transaction:recall");
      return result;
    };
  }
  return statement;
}) as typeof saver.db.prepare;

const extractive = new ExtractiveSummarizer();
const summarizer: Summarizer = {
  name: "observed-extractive",
  async summarize(input) {
    // A log's reflection folds the older segments in with no messages of its own.
    const reflection = mode === "log" && input.messages.length === 0;
    step(reflection ? "reflecting" : "summarizing");
    const text = await extractive.summarize(input);
    step(reflection ? "reflected" : "summarized");
    if (mode === "rebase") {
      // Another writer's turn lands between the summary and its write: the write must carry it over.
      const { agent } = createTestAgent(saver);
      await agent.invoke(
        { messages: [new HumanMessage({ id: "appended-turn", content: "a turn that landed during the summary" })] },
        { configurable: { thread_id: threadId } },
      );
      step("appended");
    }
    return text;
  },
};
started = true;
step("started");
if (mode === "prune") {
  onPrunePhase((phase) => step(phase));
  const report = await pruneThread(saver, { configurable: { thread_id: threadId } }, { keep: 1 });
  step(`committed:${report.status}`);
} else {
  const manager = new HistoryManager({
    checkpointer: saver,
    summarizer,
    ...(mode === "log" ? { summaryLog: "append" as const } : {}),
  });
  const report = await manager.compactThread({ configurable: { thread_id: threadId } }, { compactionRatio: 0.5 });
  step(`committed:${report.status}`);
}
started = false;
saver.db.close();
say(`steps:${statements}\n`);
