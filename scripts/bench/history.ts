/**
 * HistoryManager benchmarks: the cost of compactThread against one plain getTuple + put of the same thread, and
 * SQLite file growth over 50 turns with and without compaction. Run: npm run bench:history
 */
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { copyCheckpoint, emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { mkdtempSync, rmSync, statSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HistoryManager } from "../../src/engine/history-manager.js";
import type { Summarizer } from "../../src/summarizers/types.js";
import { ScriptedChatModel } from "../../test/support/fakes/scripted-chat-model.js";
import { generateHistory } from "../workload/history.js";
import { median, printTable } from "./table.js";
import { readmeBlock } from "./readme-block.js";

const instantSummarizer: Summarizer = { name: "instant", summarize: async () => "Summary: budget 4,200 EUR, owner Dana Okafor." };

async function seedThread(saver: SqliteSaver, threadId: string, messages: BaseMessage[]): Promise<void> {
  const checkpoint = emptyCheckpoint();
  checkpoint.id = uuid6(0);
  checkpoint.channel_values = { messages };
  checkpoint.channel_versions = { messages: 1 };
  await saver.put({ configurable: { thread_id: threadId, checkpoint_ns: "" } }, checkpoint, { source: "input", step: 0, parents: {} });
}

function fileSize(path: string): number {
  return [path, `${path}-wal`].reduce((sum, file) => sum + (existsSync(file) ? statSync(file).size : 0), 0);
}

async function benchWriteCost(dir: string): Promise<void> {
  const path = join(dir, "write-cost.sqlite");
  const saver = SqliteSaver.fromConnString(path);
  const history = generateHistory({ seed: 11, messages: 1_000 });
  const manager = new HistoryManager({ checkpointer: saver, summarizer: instantSummarizer, compactionRatio: 0.5 });
  const withoutIndex = new HistoryManager({ checkpointer: saver, summarizer: instantSummarizer, compactionRatio: 0.5, recall: false });
  const plain: number[] = [];
  const compact: number[] = [];
  const compactNoIndex: number[] = [];
  for (let round = 0; round < 7; round++) {
    const threadId = `write-cost-${round}`;
    await seedThread(saver, threadId, history);
    const config = { configurable: { thread_id: threadId, checkpoint_ns: "" } };
    // Plain: read the head and write it back as a new checkpoint (what any state update costs at minimum).
    plain.push(
      (
        await (async () => {
          const started = performance.now();
          const tuple = (await saver.getTuple(config))!;
          const next = copyCheckpoint(tuple.checkpoint);
          next.id = uuid6(1);
          next.channel_versions = { ...next.channel_versions, messages: 2 };
          await saver.put(tuple.config, next, { source: "update", step: 1, parents: {} });
          return { ms: performance.now() - started };
        })()
      ).ms,
    );
    await seedThread(saver, `${threadId}-c`, history);
    const started = performance.now();
    const report = await manager.compactThread({ configurable: { thread_id: `${threadId}-c` } });
    compact.push(performance.now() - started);
    if (report.status !== "compacted") throw new Error(`bench compaction did not happen: ${report.reason}`);
    await seedThread(saver, `${threadId}-n`, history);
    const startedNoIndex = performance.now();
    const reportNoIndex = await withoutIndex.compactThread({ configurable: { thread_id: `${threadId}-n` } });
    compactNoIndex.push(performance.now() - startedNoIndex);
    if (reportNoIndex.status !== "compacted") throw new Error(`bench compaction did not happen: ${reportNoIndex.reason}`);
  }
  // The first round warms encoders and statement caches for both paths.
  const plainMedian = median(plain.slice(1));
  const compactMedian = median(compact.slice(1));
  const noIndexMedian = median(compactNoIndex.slice(1));
  printTable("compactThread vs one plain getTuple + put, 1,000-message SQLite thread (instant summarizer, median of 6)", [
    { operation: "getTuple + put (plain)", "median ms": plainMedian.toFixed(1), ratio: "1.00x" },
    { operation: "compactThread (recall index on, the default)", "median ms": compactMedian.toFixed(1), ratio: `${(compactMedian / plainMedian).toFixed(2)}x (target <= 1.3x)` },
    { operation: "compactThread, recall: false", "median ms": noIndexMedian.toFixed(1), ratio: `${(noIndexMedian / plainMedian).toFixed(2)}x` },
  ]);
  saver.db.close();
}

async function benchGrowth(dir: string): Promise<void> {
  const rows: Array<Record<string, string | number>> = [];
  const policies = [
    { name: "no compaction", every: 0, overTokens: Infinity },
    { name: "compact every 10 turns (ratio 0.5)", every: 10, overTokens: 0 },
    { name: "compact after a turn over 20k tokens (ratio 0.5)", every: 1, overTokens: 20_000 },
  ];
  for (const policy of policies) {
    const compacting = policy.every > 0;
    const path = join(dir, `growth-${rows.length}.sqlite`);
    const saver = SqliteSaver.fromConnString(path);
    const model = new ScriptedChatModel({ reply: (messages) => ({ content: `Noted (${messages.length} messages so far): the invoice total is 4,200 EUR.` }) });
    const agent = createReactAgent({ llm: model, tools: [], checkpointer: saver });
    const threadId = "growth";
    await seedThread(saver, threadId, generateHistory({ seed: 5, messages: 1_000 }));
    saver.db.pragma("wal_checkpoint(TRUNCATE)");
    const start = fileSize(path);
    const manager = new HistoryManager({ checkpointer: saver, summarizer: instantSummarizer });
    let compactions = 0;
    const { ms } = await (async () => {
      const started = performance.now();
      for (let turn = 0; turn < 50; turn++) {
        await agent.invoke({ messages: [new HumanMessage(`turn ${turn}: what is the invoice total?`)] }, { configurable: { thread_id: threadId } });
        if (compacting && turn % policy.every === policy.every - 1) {
          const state = await agent.getState({ configurable: { thread_id: threadId } });
          if (manager.counter.countMessages(state.values.messages as BaseMessage[]) <= policy.overTokens) continue;
          const report = await manager.compactThread({ configurable: { thread_id: threadId } });
          if (report.status === "compacted") compactions++;
          else if (process.env.BENCH_DEBUG) console.log(turn, report.status, report.reason);
        }
      }
      return { ms: performance.now() - started };
    })();
    saver.db.pragma("wal_checkpoint(TRUNCATE)");
    const end = fileSize(path);
    const head = await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } });
    rows.push({
      run: policy.name,
      "file growth MB": ((end - start) / 1e6).toFixed(1),
      compactions,
      "head messages": (head!.checkpoint.channel_values.messages as BaseMessage[]).length,
      "50 turns s": (ms / 1000).toFixed(1),
    });
    saver.db.close();
  }
  printTable("SQLite file growth over 50 turns from a 1,000-message thread", rows);
}

export async function benchHistory(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "compaction-bench-"));
  try {
    await benchWriteCost(dir);
    await benchGrowth(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await readmeBlock("history", () => benchHistory());
}
