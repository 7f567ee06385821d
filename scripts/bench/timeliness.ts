/**
 * Does compaction land on time, whatever the event loop does? `npm run bench:timeliness` (a part of `npm run bench`).
 *
 * Part 1, timeliness: each runtime on a scripted agent (createAgent; the node on createReactAgent; the worker as a
 * `compact-thread watch` process on the Postgres the agent writes to, jobs on pg-boss), model latency 0, 20 and 200 ms, 1 and 8
 * threads at once, a limit of 2,000 tokens, 60 turns of ~150 tokens per thread, every thread's turns back to back.
 * Per run: compactions landed during the run, the threads that compacted, the p95 and the peak of the model's input
 * tokens as a multiple of the limit, and the most model calls in a row whose input was over the limit (the bound on
 * lateness is 2: `lateness`).
 *
 * Part 2, the event loop: one turn on a 10,000-message SQLite thread over the limit, with each runtime compacting
 * it, against the bare graph's turn on a copy of the same thread, 20 ms of model latency, interleaved in one run:
 * the event loop's largest delay (the longest gap between a 1 ms timer's ticks) during the turn and until its
 * compaction landed, and that
 * delay less the bare graph's.
 *
 * Run: npm run bench:timeliness [-- --turns 60 --latencies 0,20,200 --threads 1,8 --only "wrapper,worker, 100 ms gaps"
 * --concurrency 2] (`--concurrency`: the worker's jobs at once; by default as many as threads)
 * (TIMELINESS_DEBUG=1 prints the worker's outcomes, tallied by status, when it stops)
 */
import "../../src/store/all-backends.js";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { randomUUID } from "node:crypto";
import { createAgent, createMiddleware } from "langchain";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { LATENESS } from "../../src/engine/policy.js";
import { compactionMiddleware } from "../../src/runtimes/in-graph/compaction-middleware.js";
import { compactionNode } from "../../src/runtimes/in-graph/compaction-node.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { ScriptedChatModel } from "../../src/testing/scripted-chat-model.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { generateHistory } from "../workload/history.js";
import { eventLoopDuring, percentile, printNote, printTable } from "./table.js";
import { readmeBlock } from "./readme-block.js";
import { seedHead } from "../workload/seed-head.js";
import { startPostgres, type RunningPostgres } from "../../test/support/postgres-server.js";

const LIMIT = 2_000;
/** Runs of each pair in part 2 (medians printed). */
const REPEATS = 3;
const RUNTIMES = ["wrapper", "middleware", "node", "worker", "worker, 100 ms gaps"] as const;
type Runtime = (typeof RUNTIMES)[number];

const counter = new TokenCounter({ model: "gpt-4o" });
const VOCABULARY =
  "invoice ledger refund audit payroll vendor contract renewal incident outage latency budget forecast migration schema rollout canary Dana Okafor Berlin Lisbon Q3 VAT rounding approval escalation".split(
    " ",
  );

/** About 110 tokens of distinct, deterministic text. */
function ask(thread: number, turn: number): HumanMessage {
  let seed = thread * 1_000_003 + turn * 7_919 + 17;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648);
  const words = Array.from({ length: 70 }, () => VOCABULARY[next() % VOCABULARY.length]);
  return new HumanMessage({ content: `Turn ${turn}, ticket T-${thread}-${1000 + turn}: ${words.join(" ")}.` });
}

/** Each call's input, counted, per thread (the thread is told by the first human message's ticket). */
function recordingModel(latencyMs: number, inputs: Map<string, number[]>): ScriptedChatModel {
  return new ScriptedChatModel({
    latencyMs,
    reply: (messages) => {
      const ticket =
        messages.map((message) => /ticket T-(\d+)-/.exec(message.text)?.[1]).find((found) => found !== undefined) ??
        "?";
      let list = inputs.get(ticket);
      if (!list) inputs.set(ticket, (list = []));
      list.push(counter.countMessages(messages));
      return {
        content: `Noted ${messages.length} messages; ticket total ${messages.length * 37} EUR, due 2026-03-14.`,
      };
    },
  });
}

interface RunResult {
  landed: number;
  threadsCompacted: number;
  inputs: number[];
  longestOver: number;
}

function longestOver(series: number[]): number {
  let longest = 0;
  let run = 0;
  for (const tokens of series) {
    run = tokens > LIMIT ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

/** The embedded Postgres of the worker's runs, started at the first one. */
let postgres: Promise<RunningPostgres> | undefined;

/**
 * `compact-thread watch` on the store, a job per thread at once, sweeping every 100 ms and compacting any thread over the limit (idle 0);
 * resolves once its jobs are taken (it is up before the first turn).
 */
async function startWatch(url: string, schema: string, concurrency: number): Promise<ChildProcess> {
  const entry = resolve(import.meta.dirname, "../compact-thread.ts");
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      entry,
      "watch",
      "--postgres",
      url,
      "--schema",
      schema,
      "--limit",
      String(LIMIT),
      "--idle",
      "0",
      "--poll",
      "100",
      "--concurrency",
      String(concurrency),
      "--json",
    ],
    {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, OPENAI_API_KEY: "" },
    },
  );
  let errors = "";
  child.stderr!.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  // Its first line (a thread's outcome) says its jobs are running; the store has one thread, seeded before.
  await new Promise<void>((ready, failed) => {
    child.stdout!.once("data", () => ready());
    child.once("exit", (code) => failed(new Error(`compact-thread watch exited with ${code}: ${errors}`)));
  });
  // TIMELINESS_DEBUG=1: the worker's outcomes, tallied, when it stops.
  const tally = new Map<string, number>();
  let pending = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    pending += chunk.toString();
    for (let end = pending.indexOf("\n"); end >= 0; end = pending.indexOf("\n")) {
      const line = JSON.parse(pending.slice(0, end)) as { status?: string; skip?: string };
      pending = pending.slice(end + 1);
      const key = `${line.status ?? "?"}${line.skip ? `/${line.skip}` : ""}`;
      tally.set(key, (tally.get(key) ?? 0) + 1);
    }
  });
  if (process.env.TIMELINESS_DEBUG) child.once("exit", () => console.error(Object.fromEntries(tally)));
  return child;
}

async function stopWatch(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((done) => child.once("exit", done));
  child.kill("SIGTERM");
  await exited;
}

async function compactionsIn(saver: BaseCheckpointSaver, threadId: string): Promise<number> {
  let count = 0;
  for await (const tuple of saver.list({ configurable: { thread_id: threadId, checkpoint_ns: "" } }))
    if ((tuple.metadata as { compaction?: unknown } | undefined)?.compaction) count++;
  return count;
}

async function runOnce(
  runtime: Runtime,
  latencyMs: number,
  threads: number,
  turns: number,
  concurrency = threads,
): Promise<RunResult> {
  const dir = mkdtempSync(join(tmpdir(), "compaction-timeliness-"));
  // The in-process runtimes on a SQLite file; the worker on Postgres (the fleet's jobs are pg-boss's).
  const fleet = runtime.startsWith("worker");
  const url = fleet ? (await (postgres ??= startPostgres())).url : "";
  const schema = `timeliness_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const saver: SqliteSaver | PostgresSaver = fleet
    ? PostgresSaver.fromConnString(url, { schema })
    : SqliteSaver.fromConnString(join(dir, "app.sqlite"));
  if (saver instanceof PostgresSaver) await saver.setup();
  const inputs = new Map<string, number[]>();
  const model = recordingModel(latencyMs, inputs);
  const landedBy = new Map<string, number>();
  const landed = (threadId: string | undefined) =>
    landedBy.set(threadId ?? "?", (landedBy.get(threadId ?? "?") ?? 0) + 1);
  let invoke: (input: { messages: BaseMessage[] }, threadId: string) => Promise<unknown>;
  let close = async () => undefined as unknown;
  let watch: ChildProcess | undefined;
  if (runtime === "wrapper") {
    const graph = createAgent({ model, tools: [], checkpointer: saver });
    const supervisor = new CompactingSupervisor(graph, {
      trigger: { tokens: LIMIT },
      env: {},
      onCompaction: (report) => void (report.status === "compacted" && landed(report.threadId)),
    });
    invoke = (input, threadId) => supervisor.invoke(input, { configurable: { thread_id: threadId } });
    close = () => supervisor.close();
  } else if (runtime === "middleware") {
    const graph = createAgent({
      model,
      tools: [],
      checkpointer: saver,
      middleware: [
        compactionMiddleware({
          trigger: { tokens: LIMIT },
          env: {},
          onCompaction: (event) => void landed(event.threadId),
        }),
      ],
    });
    invoke = (input, threadId) => graph.invoke(input, { configurable: { thread_id: threadId } });
  } else if (runtime === "node") {
    const graph = createReactAgent({
      llm: model,
      tools: [],
      checkpointer: saver,
      preModelHook: compactionNode({
        trigger: { tokens: LIMIT },
        env: {},
        onCompaction: (event) => void landed(event.threadId),
      }),
    });
    invoke = (input, threadId) => graph.invoke(input, { configurable: { thread_id: threadId } });
  } else {
    const graph = createAgent({ model, tools: [], checkpointer: saver });
    // A worker outside the application compacts only a thread whose head is idle: turns back to back leave none,
    // so the second worker row leaves the thread idle 100 ms between turns, as a person's next message would.
    const gapMs = runtime === "worker" ? 0 : 100;
    invoke = async (input, threadId) => {
      const result = await graph.invoke(input, { configurable: { thread_id: threadId } });
      if (gapMs > 0) await new Promise((done) => setTimeout(done, gapMs));
      return result;
    };
    // A first turn on thread 0 before the worker starts: its first outcome says it is running.
    await invoke({ messages: [ask(0, -1)] }, "thread-0");
    watch = await startWatch(url, schema, concurrency);
  }
  try {
    await Promise.all(
      Array.from({ length: threads }, async (_, thread) => {
        for (let turn = 0; turn < turns; turn++) await invoke({ messages: [ask(thread, turn)] }, `thread-${thread}`);
      }),
    );
    if (watch)
      for (let thread = 0; thread < threads; thread++)
        landedBy.set(`thread-${thread}`, await compactionsIn(saver, `thread-${thread}`));
  } finally {
    if (watch) await stopWatch(watch);
    await close();
    if (saver instanceof PostgresSaver) await saver.end();
    else saver.db.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const series = [...inputs.values()];
  return {
    landed: [...landedBy.values()].reduce((total, count) => total + count, 0),
    threadsCompacted: [...landedBy.values()].filter((count) => count > 0).length,
    inputs: series.flat(),
    longestOver: Math.max(0, ...series.map(longestOver)),
  };
}

/**
 * Part 2: the largest event-loop delay of one turn and its compaction on a 10,000-message thread, against the same
 * graph's turn without compaction on a copy of the thread: the wrapper's graph is createAgent; the middleware's is
 * createAgent with an empty middleware (langchain reads the thread's state once more before each run of an agent with
 * any middleware: the row "createAgent, an empty middleware" prices that against createAgent alone); the node's is
 * createReactAgent with no preModelHook.
 */
async function eventLoop(runtimes: readonly Runtime[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "compaction-loop-"));
  const db = join(dir, "big.sqlite");
  const saver = SqliteSaver.fromConnString(db);
  const history = generateHistory({ seed: 42, messages: 10_000 });
  const tokens = counter.countMessages(history);
  const limit = Math.floor(tokens * 0.5);
  let seeded = 0;
  const seed = async (): Promise<string> => {
    const threadId = `big-${seeded++}`;
    await seedHead(saver, threadId, history);
    return threadId;
  };
  const model = recordingModel(20, new Map());
  const rows: Array<Record<string, string | number>> = [];
  // The largest gap between the ticks of a 1 ms timer: how long the event loop was held at once.
  const measure = async (run: () => Promise<unknown>): Promise<number> =>
    (await eventLoopDuring(async () => void (await run()))).gapMs;
  const turn = async (graph: { invoke(input: unknown, config: unknown): Promise<unknown> }): Promise<number> => {
    const threadId = await seed();
    return measure(() => graph.invoke({ messages: [ask(0, 0)] }, { configurable: { thread_id: threadId } }));
  };
  const row = (runtime: string, baseline: string, delay: number, bare: number) =>
    rows.push({
      runtime,
      "the same graph without compaction": baseline,
      "largest delay ms": delay.toFixed(0),
      "its turn ms": bare.toFixed(0),
      "above it ms": (delay - bare).toFixed(0),
    });
  const agent = createAgent({ model, tools: [], checkpointer: saver });
  const emptyMiddleware = createAgent({
    model,
    tools: [],
    checkpointer: saver,
    middleware: [createMiddleware({ name: "Empty" })],
  });
  const reactAgent = createReactAgent({ llm: model, tools: [], checkpointer: saver });
  // Each pair runs REPEATS times, interleaved (the graph's own read of the thread varies by ±150 ms with the
  // collector); the table holds the medians.
  const pair = async (first: () => Promise<number>, second: () => Promise<number>): Promise<[number, number]> => {
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < REPEATS; i++) {
      a.push(await first());
      b.push(await second());
    }
    return [percentile(a, 0.5), percentile(b, 0.5)];
  };
  try {
    for (const runtime of runtimes) {
      if (runtime.startsWith("worker")) continue;
      if (runtime === "wrapper") {
        const wrapped = async () => {
          const supervisor = new CompactingSupervisor(createAgent({ model, tools: [], checkpointer: saver }), {
            trigger: { tokens: limit },
            env: {},
          });
          const threadId = await seed();
          const delay = await measure(async () => {
            await supervisor.invoke({ messages: [ask(0, 0)] }, { configurable: { thread_id: threadId } });
            await supervisor.flush();
          });
          await supervisor.close();
          return delay;
        };
        const [bare, delay] = await pair(() => turn(agent), wrapped);
        row(runtime, "createAgent", delay, bare);
      } else if (runtime === "middleware") {
        const [alone, bare] = await pair(
          () => turn(agent),
          () => turn(emptyMiddleware),
        );
        row("createAgent, an empty middleware", "createAgent", bare, alone);
        const graph = () =>
          createAgent({
            model,
            tools: [],
            checkpointer: saver,
            middleware: [compactionMiddleware({ trigger: { tokens: limit }, env: {}, lateness: 0 })],
          });
        const [base, delay] = await pair(
          () => turn(emptyMiddleware),
          () => turn(graph()),
        );
        row(runtime, "createAgent, an empty middleware", delay, base);
      } else {
        const graph = () =>
          createReactAgent({
            llm: model,
            tools: [],
            checkpointer: saver,
            preModelHook: compactionNode({ trigger: { tokens: limit }, env: {}, lateness: 0 }),
          });
        const [bare, delay] = await pair(
          () => turn(reactAgent),
          () => turn(graph()),
        );
        row(runtime, "createReactAgent", delay, bare);
      }
    }
  } finally {
    saver.db.close();
    rmSync(dir, { recursive: true, force: true });
  }
  printTable(
    `The event loop: one turn and its compaction on a 10,000-message SQLite thread (${tokens.toLocaleString("en")} tokens, limit ${limit.toLocaleString("en")}), 20 ms of model latency, against the same graph's turn without compaction on a copy; medians of ${REPEATS} interleaved runs (npm run bench:timeliness)`,
    rows,
  );
}

export async function benchTimeliness({
  turns = 60,
  latencies = [0, 20, 200],
  threads = [1, 8],
  only = RUNTIMES as readonly Runtime[],
  concurrency,
}: {
  turns?: number;
  latencies?: number[];
  threads?: number[];
  only?: readonly Runtime[];
  /** The worker's jobs at once; default: as many as threads. */
  concurrency?: number;
} = {}): Promise<void> {
  const rows: Array<Record<string, string | number>> = [];
  for (const runtime of only) {
    for (const latency of latencies) {
      for (const count of threads) {
        const started = performance.now();
        const result = await runOnce(runtime, latency, count, turns, concurrency ?? count);
        rows.push({
          runtime,
          "latency ms": latency,
          threads: count,
          landed: result.landed,
          "threads compacted": `${result.threadsCompacted}/${count}`,
          "p95 ×limit": (percentile(result.inputs, 0.95) / LIMIT).toFixed(2),
          "peak ×limit": (Math.max(...result.inputs) / LIMIT).toFixed(2),
          "most calls in a row over": result.longestOver,
          "run s": ((performance.now() - started) / 1000).toFixed(1),
        });
      }
    }
  }
  printTable(
    `Timeliness: ${turns} back-to-back turns per thread (~150 tokens each), limit ${LIMIT.toLocaleString("en")}, defaults (lateness ${LATENESS}); the worker is compact-thread watch --postgres --idle 0 --poll 100 --concurrency ${concurrency ?? "<threads>"} beside the agent, on Postgres with jobs on pg-boss (the others on SQLite) (npm run bench:timeliness)`,
    rows,
  );
  printNote(
    'p95 and peak: of every model call\'s input tokens over the run, as a multiple of the limit. "most calls in a row over": the longest run of model calls whose input was over the limit.',
  );
  printNote(
    "The worker (another process) writes only onto an idle head: a thread whose turns run back to back is never idle, so it cannot be compacted from outside; with a 100 ms gap between turns it is.",
  );
  await eventLoop(only);
  await (await postgres)?.stop();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      turns: { type: "string" },
      latencies: { type: "string" },
      threads: { type: "string" },
      only: { type: "string" },
      concurrency: { type: "string" },
    },
  });
  // A comma and a space stay inside a name ("worker, 100 ms gaps"); a bare comma separates two.
  const list = (text: string | undefined) =>
    text
      ?.split(/,(?! )/)
      .map((value) => value.trim())
      .filter(Boolean);
  const only = list(values.only)?.map(
    (name) => RUNTIMES.find((runtime) => runtime.replace(/\W+/g, "") === name.replace(/\W+/g, "")) ?? name,
  ) as Runtime[] | undefined;
  const full =
    values.turns === undefined &&
    values.latencies === undefined &&
    values.threads === undefined &&
    values.only === undefined &&
    values.concurrency === undefined;
  await readmeBlock(
    "timeliness",
    () =>
      benchTimeliness({
        ...(values.turns ? { turns: Number(values.turns) } : {}),
        ...(values.latencies ? { latencies: list(values.latencies)!.map(Number) } : {}),
        ...(values.threads ? { threads: list(values.threads)!.map(Number) } : {}),
        ...(only ? { only } : {}),
        ...(values.concurrency ? { concurrency: Number(values.concurrency) } : {}),
      }),
    { write: full },
  );
}
