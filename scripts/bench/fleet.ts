/**
 * `npm run bench:fleet`: compaction workers over a shared store. 10,000 threads (FLEET_THREADS), of which 1,000 grow
 * over the limit, on a real Postgres (embedded) with 1, 2 and 4 worker processes, then 2 beside an application
 * process running turns on 100 other threads; on SQLite, 1 worker. Each size runs FLEET_REPEATS (2) times,
 * interleaved, and is reported by its mean with each run's figure.
 *
 * Each run: a copy of the seeded store (dropped after the run); the workers start and make their first pass (every head read; reported).
 * Then, twice: the 1,000 threads get a turn that takes them over the limit, the tables are vacuumed and the WAL
 * checkpointed, and the workers are told to go. The first growth is compacted by processes that have compacted
 * nothing yet (their code not yet optimized by the JIT), the second by the same processes, warm. Measured per growth:
 * the time until every thread is under the limit (the last compaction written), threads per second, the CPU per compacted thread of the workers and
 * of Postgres, how often a worker was preempted, the workers' CPU against the machine's (what bounds them). Per run:
 * a pass with nothing changed (heads read, ms), the lease log (no two takes of one thread overlap) and auditThread on
 * every thread — nothing lost. FLEET_DEBUG=1 prints each worker's share of a growth (compacted, CPU, passes).
 */
import "../../src/store/all-backends.js";
import { HumanMessage, AIMessage, type BaseMessage } from "@langchain/core/messages";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
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
/** Runs of each size. */
const REPEATS = Number(process.env.FLEET_REPEATS ?? 2);
/** The workers' idleMs: the application's threads, which get a turn every second or so, are left alone while it runs. */
const IDLE_MS = 2_000;
/**
 * The Postgres sizes: workers, "+app" beside the application, "+free" with no host slots (hostConcurrency false).
 * FLEET_SIZES="1,2,4,4+free,2+app" is the default (SQLite runs only then).
 */
const SIZES = (process.env.FLEET_SIZES ?? "1,2,4,4+free,2+app")
  .split(",")
  .map((size) => ({ workers: Number.parseInt(size, 10), app: size.includes("+app"), free: size.includes("+free") }));
const LIMIT = 2_000;
const ROOT = resolve(import.meta.dirname, "../..");

const sentence = (thread: number, index: number) =>
  `Order ord_${thread}_${index} for customer C-${(thread * 7 + index) % 997} was billed ${((index * 37) % 500) + 20} EUR on day ${(index % 28) + 1}; ${index % 3 === 0 ? "the refund is pending approval by Priya" : index % 3 === 1 ? "the invoice was sent to the finance team" : "shipping moved to the Lyon warehouse"}.`;

function messages(thread: number, from: number, count: number): BaseMessage[] {
  return Array.from({ length: count }, (_, offset) => {
    const index = from + offset;
    return index % 2 === 0
      ? new HumanMessage({ id: `t${thread}-m${index}`, content: sentence(thread, index) })
      : new AIMessage({ id: `t${thread}-m${index}`, content: `Noted: ${sentence(thread, index)}` });
  });
}

/** A graph whose node answers with one short message: a thread's turns are its inputs. */
function graphOn(saver: BaseCheckpointSaver) {
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state) => ({
      messages: [new AIMessage({ id: `reply-${state.messages.at(-1)!.id}`, content: "ok" })],
    }))
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
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

async function seed(saver: BaseCheckpointSaver, near: number): Promise<void> {
  const graph = graphOn(saver);
  const grownSet = new Set(grown);
  await pool(
    Array.from({ length: THREADS }, (_, index) => index),
    8,
    async (index) => {
      await graph.invoke(
        { messages: messages(index, 0, grownSet.has(index) ? near : 2) },
        { configurable: { thread_id: thread(index) } },
      );
    },
  );
  // Every seeded thread idle for the workers' idleMs: their first pass counts them all.
  await new Promise((resolveWait) => setTimeout(resolveWait, IDLE_MS));
}

async function grow(saver: BaseCheckpointSaver, from: number, count: number): Promise<void> {
  const graph = graphOn(saver);
  await pool(
    grown,
    8,
    async (index) =>
      void (await graph.invoke(
        { messages: messages(index, from, count) },
        { configurable: { thread_id: thread(index) } },
      )),
  );
}

interface WorkerDone {
  started: number;
  ended: number;
  /** When its last compaction of the round was written; undefined when it compacted none. */
  lastCompacted?: number;
  passes: number;
  cpuMs: number;
  /** Times the worker process was descheduled while it could run (involuntary context switches). */
  preempted: number;
  stats: { compacted: number; conflicts: number; errors: number; headsRead: number };
  leases: Array<[string, "taken" | "released", number]>;
}

interface Worker {
  child: ChildProcess;
  lines: AsyncIterator<string>;
  exited: Promise<unknown>;
}

function startWorker(args: string[]): Worker {
  const child = spawn(
    process.execPath,
    [
      ...(process.env.WFLAGS ? process.env.WFLAGS.split(" ") : []),
      "--import",
      "tsx",
      join(ROOT, "scripts/bench/fleet-worker.ts"),
      ...args,
    ],
    { cwd: ROOT, stdio: ["pipe", "pipe", "inherit"] },
  );
  return {
    child,
    lines: createInterface({ input: child.stdout! })[Symbol.asyncIterator](),
    exited: new Promise((resolveExit) => child.once("close", resolveExit)),
  };
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

/** CPU time (ms) of every process named `postgres` (the server and its backends, live or exited), from /proc. */
function postgresCpuMs(): number {
  const tick = 1000 / 100; // USER_HZ
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      if (stat.slice(stat.indexOf("(") + 1, close) !== "postgres") continue;
      const fields = stat.slice(close + 2).split(" ");
      // Its own time and its reaped children's (the postmaster's: backends that have exited).
      total += (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * tick;
    } catch {
      // A backend that exited between the listing and the read.
    }
  }
  return total;
}

/** The application beside the workers: turns on its 100 threads, round after round, until told to stop. */
async function runApp(
  saver: BaseCheckpointSaver,
  stop: { stopped: boolean },
): Promise<{ turns: number; maxMs: number }> {
  const graph = graphOn(saver);
  let turns = 0;
  let maxMs = 0;
  for (let round = 0; !stop.stopped; round++) {
    for (const index of appThreads) {
      if (stop.stopped) break;
      const started = performance.now();
      await graph.invoke(
        { messages: [new HumanMessage({ id: `app-${index}-${round}`, content: sentence(index, 100 + round) })] },
        { configurable: { thread_id: thread(index) } },
      );
      maxMs = Math.max(maxMs, performance.now() - started);
      turns++;
    }
  }
  return { turns, maxMs };
}

/** One growth of the 1,000 threads and the workers bringing them back under the limit. */
interface Round {
  seconds: number;
  perSecond: number;
  compacted: number;
  passes: number;
  /** The workers' CPU time per compacted thread (ms): what a compaction costs, waits excluded. */
  cpuPerThreadMs: number;
  /** The Postgres processes' CPU time per compacted thread (ms). */
  postgresCpuPerThreadMs?: number;
  /** Involuntary context switches of the worker processes per compacted thread. */
  preemptedPerThread: number;
  workerCpu: number;
  machineCpu: number;
  leases: Array<{ threadId: string; event: "taken" | "released"; at: number; worker: number }>;
  appTurns?: number;
  appMaxMs?: number;
}

interface RunResult {
  store: string;
  workers: number;
  app: boolean;
  /** The workers ran with no host slots (hostConcurrency false). */
  free: boolean;
  firstPassMs: number;
  /** The first growth, in worker processes that have compacted nothing yet; the second, in the same processes. */
  rounds: [Round, Round];
  leasesTaken: number;
  overlaps: number;
  idleMs: number;
  idleHeadsRead: number;
  lost: number;
}

/** The threads grow (`grow`), the workers are told to go, and every one passes until nothing is over the limit. */
async function round(
  running: Worker[],
  saver: BaseCheckpointSaver,
  app: boolean,
  grow: () => Promise<void>,
  settle: () => Promise<void>,
): Promise<Round> {
  await grow();
  const grown = performance.now();
  await settle();
  // The grown threads idle for the workers' idleMs before they are told to go.
  await new Promise((resolveWait) => setTimeout(resolveWait, Math.max(0, IDLE_MS - (performance.now() - grown))));
  const stop = { stopped: false };
  const appRun = app ? runApp(saver, stop) : undefined;
  const before = cpuTimes();
  const postgresBefore = postgresCpuMs();
  for (const worker of running) worker.child.stdin!.write("go\n");
  const done = await Promise.all(running.map((worker) => nextLine<WorkerDone>(worker, "done")));
  if (process.env.FLEET_DEBUG)
    console.error(
      done
        .map(
          (entry) =>
            `${entry.stats.compacted} compacted, ${entry.cpuMs.toFixed(0)} ms CPU, ${entry.passes} passes, ${entry.preempted} preempted`,
        )
        .join(" | "),
    );
  const after = cpuTimes();
  const postgresMs = postgresCpuMs() - postgresBefore;
  stop.stopped = true;
  const appResult = await appRun;
  // Until the last compaction was written: then every thread is under the limit. The workers' last passes, which
  // find nothing left (and, for workers that stood by, sweep the threads others did), are not counted.
  const writes = done.flatMap((entry) => (entry.lastCompacted === undefined ? [] : [entry.lastCompacted]));
  const seconds =
    ((writes.length > 0 ? Math.max(...writes) : Math.max(...done.map((entry) => entry.ended))) -
      Math.min(...done.map((entry) => entry.started))) /
    1000;
  const compacted = done.reduce((sum, entry) => sum + entry.stats.compacted, 0);
  const cpuMs = done.reduce((sum, entry) => sum + entry.cpuMs, 0);
  return {
    seconds,
    perSecond: compacted / seconds,
    compacted,
    passes: done.reduce((sum, entry) => sum + entry.passes, 0),
    cpuPerThreadMs: cpuMs / compacted,
    ...(postgresMs > 0 ? { postgresCpuPerThreadMs: postgresMs / compacted } : {}),
    preemptedPerThread: done.reduce((sum, entry) => sum + entry.preempted, 0) / compacted,
    workerCpu: cpuMs / 1000 / (seconds * availableParallelism()),
    machineCpu: (after.busy - before.busy) / (after.total - before.total),
    leases: done.flatMap((entry, worker) =>
      entry.leases.map(([threadId, event, at]) => ({ threadId, event, at, worker })),
    ),
    ...(appResult ? { appTurns: appResult.turns, appMaxMs: appResult.maxMs } : {}),
  };
}

async function run(
  store: string,
  { workers, app, free }: { workers: number; app: boolean; free: boolean },
  open: () => Promise<{ saver: BaseCheckpointSaver; args: string[]; settle(): Promise<void>; close(): Promise<void> }>,
  near: number,
): Promise<RunResult> {
  const { saver, args, settle, close } = await open();
  const running = Array.from({ length: workers }, () =>
    startWorker([...args, "--limit", String(LIMIT), "--idle", String(IDLE_MS), ...(free ? ["--free"] : [])]),
  );
  const scans = await Promise.all(running.map((worker) => nextLine<{ ms: number }>(worker, "scanned")));
  // The first growth: one more turn of 10 messages takes the threads over. The second: 20 more messages take the
  // compacted threads over again (a compaction leaves them at most 90% of the limit), compacted by warm processes.
  const rounds: [Round, Round] = [
    await round(running, saver, app, () => grow(saver, near, 10), settle),
    await round(running, saver, app, () => grow(saver, near + 10, 20), settle),
  ];
  for (const worker of running) worker.child.stdin!.end("end\n");
  const idle = await Promise.all(running.map((worker) => nextLine<{ ms: number; headsRead: number }>(worker, "idle")));
  await Promise.all(running.map((worker) => worker.exited));
  // The lease log of both rounds: per thread, a take is released before the next take (by any worker).
  const events = rounds.flatMap((entry) => entry.leases).sort((a, b) => a.at - b.at);
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
  await pool(
    Array.from({ length: THREADS }, (_, index) => index),
    4,
    async (index) => {
      const audit = await auditThread(saver, { configurable: { thread_id: thread(index) } });
      if (audit.problems.length > 0) lost++;
    },
  );
  await close();
  return {
    store,
    workers,
    app,
    free,
    firstPassMs: Math.max(...scans.map((scan) => scan.ms)),
    rounds,
    leasesTaken: events.filter((event) => event.event === "taken").length,
    overlaps,
    idleMs: Math.max(...idle.map((entry) => entry.ms)),
    idleHeadsRead: idle.reduce((sum, entry) => sum + entry.headsRead, 0),
    lost,
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
    printNote(
      `- seeded ${THREADS.toLocaleString("en-US")} threads on Postgres in ${((performance.now() - seeded) / 1000).toFixed(1)} s (${GROWN} of them ${near} messages, just under the ${LIMIT}-token limit; one more turn takes them over)`,
    );
    await template.end();
    let copies = 0;
    const openPostgres = async () => {
      const schema = `fleet_run_${++copies}`;
      const saver = PostgresSaver.fromConnString(postgres.url, { schema });
      await saver.setup();
      const tables = ["checkpoints", "checkpoint_blobs", "checkpoint_writes"];
      for (const table of tables)
        await admin.query(`INSERT INTO "${schema}".${table} SELECT * FROM fleet_template.${table}`);
      // Before each measured phase: the tables vacuumed and analyzed, the WAL checkpointed, so that neither an
      // autovacuum nor a checkpoint of what the bench just wrote lands in one run's measure and not another's.
      const settle = async () => {
        await admin.query(`VACUUM (ANALYZE) ${tables.map((table) => `"${schema}".${table}`).join(", ")}`);
        await admin.query("CHECKPOINT");
      };
      // The run's schema goes with it: an autovacuum of its 2,000 rewritten threads would land in the next run.
      const close = async () => {
        await saver.end();
        await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
      };
      return { saver, args: ["--postgres", postgres.url, "--schema", schema], settle, close };
    };
    // Each size REPEATS times, the sizes interleaved, every other repeat in reverse order (1,2,4 then 4,2,1): two runs
    // of one size differ by up to 20% on this machine, whose speed drifts within the hour. Sizes are compared on
    // their means, with each run's figure shown, and 4 workers against 2 by the ratio within each repeat, where the
    // two runs are next to each other in time.
    for (let repeat = 0; repeat < REPEATS; repeat++)
      for (const size of repeat % 2 === 0 ? SIZES : [...SIZES].reverse()) {
        results.push(await run("Postgres", size, openPostgres, near));
        console.error(
          `  Postgres, ${size.workers} worker(s)${size.free ? " with no host slots" : ""}${size.app ? " beside the application" : ""}: ${results
            .at(-1)!
            .rounds.map((entry) => `${entry.seconds.toFixed(1)} s`)
            .join(", ")}`,
        );
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
      return { saver, args: ["--db", copy], settle: async () => undefined, close: async () => void saver.db.close() };
    };
    if (!process.env.FLEET_SIZES)
      for (let repeat = 0; repeat < REPEATS; repeat++)
        results.push(await run("SQLite", { workers: 1, app: false, free: false }, openSqlite, near));
  } finally {
    await postgres.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const beside = (result: RunResult) => (result.app ? `app turns on ${APP_THREADS} threads` : "—");
  const sizes = new Map<string, RunResult[]>();
  for (const result of results) {
    const key = `${result.store}/${result.workers}/${result.app}/${result.free}`;
    sizes.set(key, [...(sizes.get(key) ?? []), result]);
  }
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const one = sizes.get("Postgres/1/false/false");
  const two = sizes.get("Postgres/2/false/false");
  /** Throughput against 2 workers', repeat by repeat (runs next to each other in time): their mean and each one. */
  const againstTwo = (runs: RunResult[], index: number) => {
    if (!two || runs[0]!.store !== "Postgres" || runs.length !== two.length) return "—";
    const ratios = runs.map(
      (result, repeat) => result.rounds[index]!.perSecond / two[repeat]!.rounds[index]!.perSecond,
    );
    return `${mean(ratios).toFixed(2)}× (${ratios.map((ratio) => ratio.toFixed(2)).join(", ")})`;
  };
  const slots = (result: RunResult) => (result.free ? "no limit" : `${availableParallelism()} (cores)`);
  printTable(
    `Workers over ${THREADS.toLocaleString("en-US")} threads: ${GROWN.toLocaleString("en-US")} grow over the ${LIMIT}-token limit, twice; the workers bring them back. Means of ${REPEATS} runs (npm run bench:fleet)`,
    [...sizes.values()].flatMap((runs) =>
      [0, 1].map((index) => {
        const first = runs[0]!;
        const entries = runs.map((result) => result.rounds[index]!);
        const perSecond = entries.map((entry) => entry.perSecond);
        const postgresCpu = entries.flatMap((entry) =>
          entry.postgresCpuPerThreadMs === undefined ? [] : [entry.postgresCpuPerThreadMs],
        );
        return {
          store: first.store,
          workers: first.workers,
          "host slots": slots(first),
          beside: beside(first),
          growth: index === 0 ? "1st (new processes)" : "2nd (same processes)",
          "all under the limit s": mean(entries.map((entry) => entry.seconds)).toFixed(1),
          "threads/s (runs)": `${mean(perSecond).toFixed(1)} (${perSecond.map((value) => value.toFixed(0)).join(", ")})`,
          "vs 1 worker":
            one && first.store === "Postgres"
              ? `${(mean(perSecond) / mean(one.map((result) => result.rounds[index]!.perSecond))).toFixed(2)}×`
              : "—",
          "vs 2 workers, per repeat": againstTwo(runs, index),
          compacted: entries.map((entry) => entry.compacted).join(", "),
          passes: mean(entries.map((entry) => entry.passes)).toFixed(0),
          "workers' CPU ms/thread": mean(entries.map((entry) => entry.cpuPerThreadMs)).toFixed(1),
          "Postgres CPU ms/thread": postgresCpu.length === 0 ? "—" : mean(postgresCpu).toFixed(1),
          "preemptions/thread": mean(entries.map((entry) => entry.preemptedPerThread)).toFixed(1),
          "workers' CPU": `${Math.round(mean(entries.map((entry) => entry.workerCpu)) * 100)}%`,
          "machine CPU": `${Math.round(mean(entries.map((entry) => entry.machineCpu)) * 100)}%`,
          "app turns (max ms)": first.app
            ? `${mean(entries.map((entry) => entry.appTurns!)).toFixed(0)} (${Math.max(...entries.map((entry) => entry.appMaxMs!)).toFixed(0)})`
            : "—",
        };
      }),
    ),
  );
  printTable(
    "Each run, in order: the first pass (every head counted once), the lease log of both growths, a pass with nothing changed, auditThread on every thread",
    results.map((result) => ({
      store: result.store,
      workers: result.workers,
      "host slots": slots(result),
      beside: beside(result),
      "first pass s": (result.firstPassMs / 1000).toFixed(1),
      "leases taken": result.leasesTaken,
      "lease overlaps": result.overlaps,
      "nothing-changed pass ms": result.idleMs.toFixed(0),
      "heads read": result.idleHeadsRead,
      "threads with a problem": result.lost,
    })),
  );
  printNote(
    `- vs 2 workers, per repeat: each repeat's throughput against the 2-worker run of the same repeat (next to it in time), their mean first.`,
  );
  printNote(
    `- workers' CPU ms/thread: the worker processes' CPU time over the threads they compacted; workers' CPU: their CPU time over the phase's wall time × ${availableParallelism()} cores; machine CPU: every process's (/proc/stat), Postgres included.`,
  );
}

await readmeBlock("fleet", benchFleet, {
  write: !process.env.FLEET_THREADS && !process.env.FLEET_SIZES && !process.env.FLEET_REPEATS,
});
