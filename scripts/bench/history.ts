/**
 * HistoryManager benchmarks: the cost of compactThread against one plain getTuple + put of the same thread, and
 * SQLite file growth over 50 turns with and without compaction. Run: npm run bench:history
 */
import "../../src/store/all-backends.js";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { copyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { mkdtempSync, rmSync, statSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import type { Summarizer } from "../../src/summarizers/types.js";
import { ScriptedChatModel } from "../../test/support/fakes/scripted-chat-model.js";
import { modelWithHardLimit } from "../../test/support/window.js";
import { generateHistory } from "../workload/history.js";
import { eventLoopDuring, median, printTable } from "./table.js";
import { readmeBlock } from "./readme-block.js";
import { seedHead } from "../workload/seed-head.js";

const instantSummarizer: Summarizer = {
  name: "instant",
  summarize: async () => "Summary: budget 4,200 EUR, owner Dana Okafor.",
};

function fileSize(path: string): number {
  return [path, `${path}-wal`].reduce((sum, file) => sum + (existsSync(file) ? statSync(file).size : 0), 0);
}

async function benchWriteCost(dir: string): Promise<void> {
  const path = join(dir, "write-cost.sqlite");
  const saver = SqliteSaver.fromConnString(path);
  const history = generateHistory({ seed: 11, messages: 1_000 });
  const manager = new HistoryManager({ checkpointer: saver, summarizer: instantSummarizer, compactionRatio: 0.5 });
  const plain: number[] = [];
  const compact: number[] = [];
  for (let round = 0; round < 7; round++) {
    const threadId = `write-cost-${round}`;
    await seedHead(saver, threadId, history);
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
    await seedHead(saver, `${threadId}-c`, history);
    const started = performance.now();
    const report = await manager.compactThread({ configurable: { thread_id: `${threadId}-c` } });
    compact.push(performance.now() - started);
    if (report.status !== "compacted") throw new Error(`bench compaction did not happen: ${report.reason}`);
  }
  // The first round warms encoders and statement caches for both paths.
  const plainMedian = median(plain.slice(1));
  const compactMedian = median(compact.slice(1));
  printTable(
    "compactThread vs one plain getTuple + put, 1,000-message SQLite thread (instant summarizer, median of 6)",
    [
      { operation: "getTuple + put (plain)", "median ms": plainMedian.toFixed(1), ratio: "1.00x" },
      {
        operation: "compactThread (with its transcript rows)",
        "median ms": compactMedian.toFixed(1),
        ratio: `${(compactMedian / plainMedian).toFixed(2)}x (target <= 1.3x)`,
      },
    ],
  );
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
    const model = new ScriptedChatModel({
      reply: (messages) => ({ content: `Noted (${messages.length} messages so far): the invoice total is 4,200 EUR.` }),
    });
    const agent = createReactAgent({ llm: model, tools: [], checkpointer: saver });
    const threadId = "growth";
    await seedHead(saver, threadId, generateHistory({ seed: 5, messages: 1_000 }));
    saver.db.pragma("wal_checkpoint(TRUNCATE)");
    const start = fileSize(path);
    const manager = new HistoryManager({ checkpointer: saver, summarizer: instantSummarizer });
    let compactions = 0;
    const { ms } = await (async () => {
      const started = performance.now();
      for (let turn = 0; turn < 50; turn++) {
        await agent.invoke(
          { messages: [new HumanMessage(`turn ${turn}: what is the invoice total?`)] },
          { configurable: { thread_id: threadId } },
        );
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

/** Sizes of the scaling and event-loop tables (HISTORY_SIZES=1000,20000 for a quick look). */
const SCALING_SIZES = process.env.HISTORY_SIZES
  ? process.env.HISTORY_SIZES.split(",").map(Number)
  : [1_000, 5_000, 10_000, 20_000];

/** compactThread with the defaults, per message, against the summarizer alone and a plain getTuple + put (median of 3, sizes interleaved). */
async function benchScaling(dir: string): Promise<void> {
  const ROUNDS = 3;
  const histories = new Map(SCALING_SIZES.map((size) => [size, generateHistory({ seed: 11, messages: size })]));
  const runs = new Map(
    SCALING_SIZES.map((size) => [size, { compact: [] as number[], summarizer: [] as number[], plain: [] as number[] }]),
  );
  const saver = SqliteSaver.fromConnString(join(dir, "scaling.sqlite"));
  const config = (thread_id: string) => ({ configurable: { thread_id, checkpoint_ns: "" } });
  for (let round = 0; round < ROUNDS; round++) {
    for (const size of SCALING_SIZES) {
      const history = histories.get(size)!;
      const figures = runs.get(size)!;
      await seedHead(saver, `plain-${size}-${round}`, history);
      await seedHead(saver, `compact-${size}-${round}`, history);
      let started = performance.now();
      const tuple = (await saver.getTuple(config(`plain-${size}-${round}`)))!;
      const next = copyCheckpoint(tuple.checkpoint);
      next.id = uuid6(1);
      next.channel_versions = { ...next.channel_versions, messages: 2 };
      await saver.put(tuple.config, next, { source: "update", step: 1, parents: {} });
      figures.plain.push(performance.now() - started);
      const extractive = new ExtractiveSummarizer();
      let summarizerMs = 0;
      const timed: Summarizer = {
        name: "extractive",
        summarize: async (input) => {
          const at = performance.now();
          try {
            return await extractive.summarize(input);
          } finally {
            summarizerMs += performance.now() - at;
          }
        },
      };
      const manager = new HistoryManager({ checkpointer: saver, summarizer: timed });
      started = performance.now();
      const report = await manager.compactThread(config(`compact-${size}-${round}`));
      figures.compact.push(performance.now() - started);
      figures.summarizer.push(summarizerMs);
      if (report.status !== "compacted") throw new Error(`bench compaction did not happen: ${report.reason}`);
    }
  }
  saver.db.close();
  const perMessage = (ms: number[], size: number) => (median(ms) * 1000) / size;
  const first = perMessage(runs.get(SCALING_SIZES[0]!)!.compact, SCALING_SIZES[0]!);
  const rows = SCALING_SIZES.map((size) => {
    const figures = runs.get(size)!;
    const compact = perMessage(figures.compact, size);
    return {
      messages: size.toLocaleString("en-US"),
      "compactThread s": (median(figures.compact) / 1000).toFixed(2),
      "µs/message": compact.toFixed(0),
      "vs first size": `${(compact / first).toFixed(2)}x (target <= 1.5x)`,
      "summarizer alone µs/message": perMessage(figures.summarizer, size).toFixed(0),
      "getTuple + put µs/message": perMessage(figures.plain, size).toFixed(0),
    };
  });
  printTable(
    `compactThread with the default (offline) summarizer by thread length, SQLite, median of ${ROUNDS} (target: 20,000 messages under 5 s)`,
    rows,
  );
}

/**
 * The application's event loop while the wrapper compacts a long thread in the background (defaults: the offline
 * summarizer), from the end of the turn that triggered it until flush(), against the same length of idle time.
 */
async function benchEventLoop(dir: string): Promise<void> {
  const rows: Array<Record<string, string>> = [];
  // On the application's thread: the summary runs in slices, and each phase (read, count, plan, write) lets the event
  // loop turn over; the read of the head and the write are one stretch each, as the graph's own read and write are
  // (bench:timeliness compares them with the graph's own turn).
  for (const size of SCALING_SIZES.filter((size) => size !== 5_000)) {
    const saver = SqliteSaver.fromConnString(join(dir, `loop-${size}.sqlite`));
    const model = new ScriptedChatModel({ reply: () => ({ content: "Noted: the invoice total is 4,200 EUR." }) });
    const agent = createReactAgent({ llm: model, tools: [], checkpointer: saver });
    const history = generateHistory({ seed: 13, messages: size });
    await seedHead(saver, "loop", history);
    // Just under the limit before the turn, over it after: the compaction starts after the turn, in the background
    // (a thread already past hardLimit would be compacted before the turn, on the caller's time).
    const tokens = new TokenCounter().countMessages(history);
    let compactions = 0;
    const supervisor = new CompactingSupervisor(agent, {
      trigger: { tokens: tokens + 5 },
      // The hard limit (90% of the model's window) well above the thread.
      model: modelWithHardLimit(tokens * 2),
      summarizer: new ExtractiveSummarizer(),
      background: true,
      env: {},
      onCompaction: (report) => void (report.status === "compacted" && compactions++),
    });
    await supervisor.invoke(
      { messages: [new HumanMessage("What is the invoice total?")] },
      { configurable: { thread_id: "loop" } },
    );
    const busy = await eventLoopDuring(() => supervisor.flush());
    if (compactions !== 1 || busy.ms < 1)
      throw new Error(
        `expected one background compaction after the turn, saw ${compactions} (flush ${busy.ms.toFixed(0)} ms)`,
      );
    const idle = await eventLoopDuring(() => new Promise((resolve) => setTimeout(resolve, busy.ms)));
    rows.push({
      messages: size.toLocaleString("en-US"),
      "compaction s": (busy.ms / 1000).toFixed(2),
      "max delay ms": busy.maxMs.toFixed(0),
      "p99 ms": busy.p99Ms.toFixed(0),
      "1 ms timer's largest gap ms": busy.gapMs.toFixed(0),
      "idle max / gap ms": `${idle.maxMs.toFixed(0)} / ${idle.gapMs.toFixed(0)}`,
      "above idle ms": (busy.maxMs - idle.maxMs).toFixed(0),
    });
    saver.db.close();
  }
  printTable(
    "The application's event loop during a background compaction (wrapper defaults; SQLite; from the turn's return to flush())",
    rows,
  );
}

export async function benchHistory(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "compaction-bench-"));
  try {
    await benchWriteCost(dir);
    await benchScaling(dir);
    await benchEventLoop(dir);
    await benchGrowth(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await readmeBlock("history", () => benchHistory());
}
