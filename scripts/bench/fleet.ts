/**
 * `npm run bench:fleet`: compaction workers over a shared store. 10,000 threads (FLEET_THREADS), of which 1,000 grow
 * over the limit, on a real Postgres (embedded) with 1, 2 and 4 worker processes, then 2 beside an application
 * process running turns on 100 other threads; on SQLite, 1 worker.
 *
 * Each run: a copy of the seeded store; the workers start and make their first pass (every head read; reported);
 * then 1,000 threads get one more turn that takes them over the limit, and the workers are told to go. Measured:
 * the time until every thread is under the limit, threads per second, the workers' CPU against the machine's (what
 * bounds them), a pass with nothing changed (heads read, ms), the lease log (no two takes of one thread overlap) and
 * auditThread on every thread — nothing lost.
 */
import { HumanMessage, AIMessage, type BaseMessage } from "@langchain/core/messages";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import pg from "pg";
import { auditThread } from "../../src/engine/audit.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { startPostgres } from "../../test/support/postgres-server.js";
import { readmeBlock } from "./readme-block.js";
import { printNote, printTable } from "./table.js";

const THREADS = Number(process.env.FLEET_THREADS ?? 10_000);
const GROWN = Math.round(THREADS / 10);
const APP_THREADS = 100;
const LIMIT = 2_000;
const ROOT = resolve(import.meta.dirname, "../..");

const sentence = (thread: number, index: number) =>
  `Order ord_${thread}_${index} for customer C-${(thread * 7 + index) % 997} was billed ${(index * 37) % 500 + 20} EUR on day ${index % 28 + 1}; ${index % 3 === 0 ? "the refund is pending approval by Priya" : index % 3 === 1 ? "the invoice was sent to the finance team" : "shipping moved to the Lyon warehouse"}.`;

function messages(thread: number, from: number, count: number): BaseMessage[] {
  return Array.from({ length: count }, (_, offset) => {
    const index = from + offset;
    return index % 2 === 0 ? new HumanMessage({ id: `t${thread}-m${index}`, content: sentence(thread, index) }) : new AIMessage({ id: `t${thread}-m${index}`, content: `Noted: ${sentence(thread, index)}` });
  });
}

/** A graph whose node answers with one short message: a thread's turns are its inputs. */
function graphOn(saver: BaseCheckpointSaver) {
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state) => ({ messages: [new AIMessage({ id: `reply-${state.messages.at(-1)!.id}`, content: "ok" })] }))
    .addEdge("__start__", "agent")
    .compile({ checkpointer: saver });
}

const thread = (index: number) => `thread-${String(index).padStart(5, "0")}`;
/** The grown threads are every tenth; the application's are the 100 after the first of each tenth. */
const grown = Array.from({ length: GROWN }, (_, index) => index * 10);
const appThreads = Array.from({ length: APP_THREADS }, (_, index) => index * 10 + 1);

/** Near the limit: the grown threads hold enough to cross it with one more turn; the rest hold a short exchange. */
function nearLimitLength(counter: TokenCounter): number {
  let count = 2;
  while (counter.countMessages(messages(0, 0, count + 2)) < LIMIT - 150) count += 2;
  return count;
}

async function pool<T>(items: readonly T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: size }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

async function seed(saver: BaseCheckpointSaver, near: number): Promise<void> {
  const graph = graphOn(saver);
  const grownSet = new Set(grown);
  await pool(Array.from({ length: THREADS }, (_, index) => index), 8, async (index) => {
    await graph.invoke({ messages: messages(index, 0, grownSet.has(index) ? near : 2) }, { configurable: { thread_id: thread(index) } });
  });
}

async function grow(saver: BaseCheckpointSaver, near: number): Promise<void> {
  const graph = graphOn(saver);
  await pool(grown, 8, async (index) => void (await graph.invoke({ messages: messages(index, near, 10) }, { configurable: { thread_id: thread(index) } })));
}

interface WorkerDone {
  started: number;
  ended: number;
  passes: number;
  cpuMs: number;
  stats: { compacted: number; conflicts: number; errors: number; headsRead: number };
  leases: Array<[string, "taken" | "released", number]>;
}

interface Worker {
  child: ChildProcess;
  lines: AsyncIterator<string>;
  exited: Promise<unknown>;
}

function startWorker(args: string[]): Worker {
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "scripts/bench/fleet-worker.ts"), ...args], { cwd: ROOT, stdio: ["pipe", "pipe", "inherit"] });
  return { child, lines: createInterface({ input: child.stdout! })[Symbol.asyncIterator](), exited: new Promise((resolveExit) => child.once("close", resolveExit)) };
}

async function nextLine<T>(worker: Worker, key: string): Promise<T> {
  for (;;) {
    const { value, done } = await worker.lines.next();
    if (done) throw new Error(`a worker ended before saying ${key}`);
    const parsed = JSON.parse(value) as Record<string, T>;
    if (key in parsed) return parsed[key]!;
  }
}

/** Busy and total jiffies of the machine (/proc/stat), to tell how much of the CPU a phase used. */
function cpuTimes(): { busy: number; total: number } {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const idle = fields[3]! + (fields[4] ?? 0);
  const total = fields.reduce((sum, value) => sum + value, 0);
  return { busy: total - idle, total };
}

/** The application beside the workers: turns on its 100 threads, round after round, until told to stop. */
async function runApp(saver: BaseCheckpointSaver, stop: { stopped: boolean }): Promise<{ turns: number; maxMs: number }> {
  const graph = graphOn(saver);
  let turns = 0;
  let maxMs = 0;
  for (let round = 0; !stop.stopped; round++) {
    for (const index of appThreads) {
      if (stop.stopped) break;
      const started = performance.now();
      await graph.invoke({ messages: [new HumanMessage({ id: `app-${index}-${round}`, content: sentence(index, 100 + round) })] }, { configurable: { thread_id: thread(index) } });
      maxMs = Math.max(maxMs, performance.now() - started);
      turns++;
    }
  }
  return { turns, maxMs };
}

interface RunResult {
  store: string;
  workers: number;
  app: boolean;
  firstPassMs: number;
  seconds: number;
  perSecond: number;
  compacted: number;
  overlaps: number;
  workerCpu: number;
  machineCpu: number;
  idleMs: number;
  idleHeadsRead: number;
  lost: number;
  appTurns?: number;
  appMaxMs?: number;
}

async function run(store: string, workers: number, app: boolean, open: () => Promise<{ saver: BaseCheckpointSaver; args: string[]; close(): Promise<void> }>, near: number): Promise<RunResult> {
  const { saver, args, close } = await open();
  const running = Array.from({ length: workers }, () => startWorker([...args, "--limit", String(LIMIT)]));
  const scans = await Promise.all(running.map((worker) => nextLine<{ ms: number }>(worker, "scanned")));
  await grow(saver, near);
  const stop = { stopped: false };
  const appRun = app ? runApp(saver, stop) : undefined;
  const before = cpuTimes();
  for (const worker of running) worker.child.stdin!.end("go\n");
  const done = await Promise.all(running.map((worker) => nextLine<WorkerDone>(worker, "done")));
  const after = cpuTimes();
  stop.stopped = true;
  const appResult = await appRun;
  const idle = await Promise.all(running.map((worker) => nextLine<{ ms: number; headsRead: number }>(worker, "idle")));
  await Promise.all(running.map((worker) => worker.exited));
  const started = Math.min(...done.map((entry) => entry.started));
  const ended = Math.max(...done.map((entry) => entry.ended));
  // The lease log: per thread, a take is released before the next take (by any worker).
  const events = done.flatMap((entry, worker) => entry.leases.map(([threadId, event, at]) => ({ threadId, event, at, worker }))).sort((a, b) => a.at - b.at);
  const held = new Map<string, number>();
  let overlaps = 0;
  for (const event of events) {
    if (event.event === "taken") {
      if (held.has(event.threadId)) overlaps++;
      held.set(event.threadId, event.worker);
    } else held.delete(event.threadId);
  }
  // Nothing lost: auditThread on every thread of the store.
  let lost = 0;
  await pool(Array.from({ length: THREADS }, (_, index) => index), 4, async (index) => {
    const audit = await auditThread(saver, { configurable: { thread_id: thread(index) } });
    if (audit.problems.length > 0) lost++;
  });
  await close();
  const seconds = (ended - started) / 1000;
  const compacted = done.reduce((sum, entry) => sum + entry.stats.compacted, 0);
  return {
    store,
    workers,
    app,
    firstPassMs: Math.max(...scans.map((scan) => scan.ms)),
    seconds,
    perSecond: compacted / seconds,
    compacted,
    overlaps,
    workerCpu: done.reduce((sum, entry) => sum + entry.cpuMs, 0) / 1000 / (seconds * availableParallelism()),
    machineCpu: (after.busy - before.busy) / (after.total - before.total),
    idleMs: Math.max(...idle.map((entry) => entry.ms)),
    idleHeadsRead: idle.reduce((sum, entry) => sum + entry.headsRead, 0),
    lost,
    ...(appResult ? { appTurns: appResult.turns, appMaxMs: appResult.maxMs } : {}),
  };
}

async function benchFleet(): Promise<void> {
  const counter = new TokenCounter();
  const near = nearLimitLength(counter);
  const postgres = await startPostgres();
  const results: RunResult[] = [];
  const dir = mkdtempSync(join(tmpdir(), "compaction-fleet-"));
  try {
    const admin = new pg.Pool({ connectionString: postgres.url });
    const template = PostgresSaver.fromConnString(postgres.url, { schema: "fleet_template" });
    await template.setup();
    let seeded = performance.now();
    await seed(template, near);
    printNote(`- seeded ${THREADS.toLocaleString("en-US")} threads on Postgres in ${((performance.now() - seeded) / 1000).toFixed(1)} s (${GROWN} of them ${near} messages, just under the ${LIMIT}-token limit; one more turn takes them over)`);
    await template.end();
    let copies = 0;
    const openPostgres = async () => {
      const schema = `fleet_run_${++copies}`;
      const saver = PostgresSaver.fromConnString(postgres.url, { schema });
      await saver.setup();
      for (const table of ["checkpoints", "checkpoint_blobs", "checkpoint_writes"]) await admin.query(`INSERT INTO "${schema}".${table} SELECT * FROM fleet_template.${table}`);
      return { saver, args: ["--postgres", postgres.url, "--schema", schema], close: () => saver.end() };
    };
    for (const [workers, app] of [[1, false], [2, false], [4, false], [2, true]] as const) {
      results.push(await run("Postgres", workers, app, openPostgres, near));
      console.error(`  Postgres, ${workers} worker(s)${app ? " beside the application" : ""}: ${results.at(-1)!.seconds.toFixed(1)} s`);
    }
    await admin.end();
    const file = join(dir, "template.sqlite");
    const sqlite = SqliteSaver.fromConnString(file);
    seeded = performance.now();
    await seed(sqlite, near);
    printNote(`- seeded the same threads in a SQLite file in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);
    sqlite.db.close();
    const openSqlite = async () => {
      const copy = join(dir, "run.sqlite");
      copyFileSync(file, copy);
      const saver = SqliteSaver.fromConnString(copy);
      return { saver, args: ["--db", copy], close: async () => void saver.db.close() };
    };
    results.push(await run("SQLite", 1, false, openSqlite, near));
  } finally {
    await postgres.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const one = results.find((result) => result.store === "Postgres" && result.workers === 1 && !result.app)!;
  printTable(
    `Workers over ${THREADS.toLocaleString("en-US")} threads: ${GROWN.toLocaleString("en-US")} grow over the ${LIMIT}-token limit, the workers bring them back (npm run bench:fleet)`,
    results.map((result) => ({
      store: result.store,
      workers: result.workers,
      beside: result.app ? `app turns on ${APP_THREADS} threads` : "—",
      "first pass s": (result.firstPassMs / 1000).toFixed(1),
      "all under the limit s": result.seconds.toFixed(1),
      "threads/s": result.perSecond.toFixed(1),
      "vs 1 worker": result.store === "Postgres" ? `${(result.perSecond / one.perSecond).toFixed(2)}×` : "—",
      compacted: result.compacted,
      "lease overlaps": result.overlaps,
      "workers' CPU": `${Math.round(result.workerCpu * 100)}%`,
      "machine CPU": `${Math.round(result.machineCpu * 100)}%`,
      "nothing-changed pass ms": result.idleMs.toFixed(0),
      "heads read": result.idleHeadsRead,
      "threads with a problem": result.lost,
      "app turns (max ms)": result.appTurns === undefined ? "—" : `${result.appTurns} (${result.appMaxMs!.toFixed(0)})`,
    })),
  );
  printNote(`- workers' CPU: their CPU time over the phase's wall time × ${availableParallelism()} cores; machine CPU: every process's (/proc/stat), Postgres included.`);
}

await readmeBlock("fleet", benchFleet, { write: !process.env.FLEET_THREADS });
