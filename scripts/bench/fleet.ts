/**
 * `npm run bench:fleet`: the fleet's throughput — threads compacted per minute by 1, 2 and 4 worker processes
 * (CompactionWorker, jobs on pg-boss, one job at a time in each) over one real Postgres (embedded), each compaction's
 * summary taking FLEET_LATENCY_MS (200) of latency (a model's wait, not CPU). Per run: a fresh schema holding
 * FLEET_THREADS (120) threads just over the 2,000-token limit; the workers, loaded, are told to start together;
 * measured from then to the last compaction. Every thread compacted exactly once, auditThread clean on every thread.
 * Each size runs FLEET_REPEATS (2) times, interleaved; the mean is printed with each run's figure. Beside them, in
 * the same run, the watcher the fleet replaced (a lease table of the library's own and a poll loop over every
 * thread: fleet-watcher.ts), checked out from FLEET_WATCHER_COMMIT (the last commit that had it) into a git worktree.
 */
import "../../src/store/all-backends.js";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import PgBoss from "pg-boss";
import { join, resolve } from "node:path";
import { auditThread } from "../../src/engine/audit.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { startPostgres } from "../../test/support/postgres-server.js";
import { readmeBlock } from "./readme-block.js";
import { printNote, printTable } from "./table.js";

const THREADS = Number(process.env.FLEET_THREADS ?? 120);
const REPEATS = Number(process.env.FLEET_REPEATS ?? 2);
const LATENCY_MS = Number(process.env.FLEET_LATENCY_MS ?? 200);
const SIZES = [1, 2, 4];
const LIMIT = 2_000;
const ROOT = resolve(import.meta.dirname, "../..");
/** The last commit with the lease-table watcher: the next one moved the fleet onto pg-boss. */
const WATCHER_COMMIT = process.env.FLEET_WATCHER_COMMIT ?? "7770040^";

/** Which fleet a run starts: today's workers on pg-boss, or the watcher checked out at WATCHER_COMMIT. */
type Fleet = { kind: "pg-boss" } | { kind: "watcher"; checkout: string };

const sentence = (thread: number, index: number) =>
  `Order ord_${thread}_${index} for customer C-${(thread * 7 + index) % 997} was billed ${((index * 37) % 500) + 20} EUR on day ${(index % 28) + 1}; ${index % 3 === 0 ? "the refund is pending approval by Priya" : "the invoice was sent to the finance team"}.`;

function messages(thread: number, count: number): BaseMessage[] {
  return Array.from({ length: count }, (_, index) =>
    index % 2 === 0
      ? new HumanMessage({ id: `t${thread}-m${index}`, content: sentence(thread, index) })
      : new AIMessage({ id: `t${thread}-m${index}`, content: `Noted: ${sentence(thread, index)}` }),
  );
}

/** Just over the limit: the fewest messages (in pairs) whose tokens pass it. */
function overLimitLength(): number {
  const counter = new TokenCounter({ model: "gpt-4o" });
  let count = 2;
  while (counter.countMessages(messages(0, count)) <= LIMIT) count += 2;
  return count;
}

async function seed(saver: BaseCheckpointSaver, length: number): Promise<void> {
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("agent", () => ({}))
    .addEdge("__start__", "agent")
    .compile({ checkpointer: saver });
  for (let thread = 0; thread < THREADS; thread++)
    await graph.invoke({ messages: messages(thread, length) }, { configurable: { thread_id: `thread-${thread}` } });
}

interface Run {
  fleet: Fleet["kind"];
  workers: number;
  seconds: number;
  compacted: number;
  /** Threads whose head's lineage does not hold exactly one compaction, or whose audit found a problem. */
  wrong: number;
}

/** `workers` processes on a fresh schema: the seconds from the first one's start to the last compaction. */
async function run(url: string, schema: string, fleet: Fleet, workers: number, length: number): Promise<Run> {
  const saver = PostgresSaver.fromConnString(url, { schema });
  await saver.setup();
  await seed(saver, length);
  let compacted = 0;
  let last = 0;
  let done!: () => void;
  const allDone = new Promise<void>((resolveDone) => (done = resolveDone));
  let ready = 0;
  let allReady!: () => void;
  const loaded = new Promise<void>((resolveReady) => (allReady = resolveReady));
  const children = Array.from({ length: workers }, () => {
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        ...(fleet.kind === "pg-boss"
          ? [resolve(ROOT, "scripts/bench/fleet-worker.ts")]
          : [resolve(ROOT, "scripts/bench/fleet-watcher.ts"), "--from", fleet.checkout]),
        "--postgres",
        url,
        "--schema",
        schema,
        "--limit",
        String(LIMIT),
        "--latency",
        String(LATENCY_MS),
      ],
      { cwd: ROOT, env: { ...process.env, OPENAI_API_KEY: "" }, stdio: ["pipe", "pipe", "inherit"] },
    );
    let buffer = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
        const line = JSON.parse(buffer.slice(0, end)) as { compacted?: number; ready?: boolean };
        buffer = buffer.slice(end + 1);
        if (line.ready && ++ready === workers) allReady();
        if (line.compacted === undefined) continue;
        compacted++;
        last = Math.max(last, line.compacted);
        if (compacted === THREADS) done();
      }
    });
    return child;
  });
  await loaded;
  const started = Date.now();
  for (const child of children) child.stdin!.write("go\n");
  await allDone;
  await Promise.all(
    children.map((child) => {
      const exited = new Promise((resolveExit) => child.once("exit", resolveExit));
      child.kill("SIGTERM");
      return exited;
    }),
  );
  let wrong = 0;
  for (let thread = 0; thread < THREADS; thread++) {
    const config = { configurable: { thread_id: `thread-${thread}` } };
    let inLine = 0;
    for await (const tuple of saver.list(config))
      if (typeof (tuple.metadata as Record<string, unknown> | undefined)?.compaction === "object") inLine++;
    if (inLine !== 1 || (await auditThread(saver, config)).problems.length > 0) wrong++;
  }
  await saver.end();
  return { fleet: fleet.kind, workers, seconds: (last - started) / 1000, compacted, wrong };
}

/** WATCHER_COMMIT checked out beside this repository, sharing its node_modules; undefined where git cannot. */
function checkOutWatcher(): { checkout: string; remove(): void } | undefined {
  const checkout = mkdtempSync(join(tmpdir(), "fleet-watcher-"));
  try {
    execFileSync("git", ["worktree", "add", "--detach", checkout, WATCHER_COMMIT], { cwd: ROOT, stdio: "ignore" });
  } catch {
    rmSync(checkout, { recursive: true, force: true });
    return undefined;
  }
  symlinkSync(join(ROOT, "node_modules"), join(checkout, "node_modules"));
  return {
    checkout,
    remove: () => execFileSync("git", ["worktree", "remove", "--force", checkout], { cwd: ROOT, stdio: "ignore" }),
  };
}

async function benchFleet(): Promise<void> {
  const postgres = await startPostgres();
  // pg-boss's schema, created by its migrations before the first run (not in any run's time).
  const boss = new PgBoss({ connectionString: postgres.url, supervise: false, schedule: false });
  await boss.start();
  await boss.stop({ graceful: false });
  const length = overLimitLength();
  const watcher = checkOutWatcher();
  const fleets: Fleet[] = [{ kind: "pg-boss" }, ...(watcher ? [{ kind: "watcher" as const, ...watcher }] : [])];
  const runs: Run[] = [];
  try {
    for (let repeat = 0; repeat < REPEATS; repeat++)
      for (const workers of SIZES)
        for (const fleet of fleets)
          runs.push(
            await run(
              postgres.url,
              `fleet_${fleet.kind.replace("-", "")}_${repeat}_${workers}`,
              fleet,
              workers,
              length,
            ),
          );
  } finally {
    watcher?.remove();
    await postgres.stop();
  }
  const perMinute = (run: Run) => (run.compacted / run.seconds) * 60;
  const mean = (values: number[]) => values.reduce((total, value) => total + value, 0) / values.length;
  const one = (fleet: Fleet["kind"]) =>
    mean(runs.filter((run) => run.fleet === fleet && run.workers === 1).map(perMinute));
  printTable(
    `The fleet: ${THREADS} threads just over the ${LIMIT.toLocaleString("en")}-token limit (${length} messages each), each summary ${LATENCY_MS} ms of latency; worker processes on one Postgres, one compaction at a time each: today's on pg-boss, and the watcher it replaced (a lease table and a poll loop, at ${WATCHER_COMMIT}). Means of ${REPEATS} runs, interleaved (npm run bench:fleet)`,
    fleets
      .flatMap(({ kind }) => SIZES.map((workers) => ({ kind, workers })))
      .map(({ kind, workers }) => {
        const mine = runs.filter((run) => run.fleet === kind && run.workers === workers);
        return {
          fleet: kind === "pg-boss" ? "jobs on pg-boss" : "the watcher",
          workers,
          "s to compact all (runs)": `${mean(mine.map((run) => run.seconds)).toFixed(1)} (${mine.map((run) => run.seconds.toFixed(1)).join(", ")})`,
          "threads/min": mean(mine.map(perMinute)).toFixed(0),
          "vs 1 worker": `${(mean(mine.map(perMinute)) / one(kind)).toFixed(2)}×`,
          compacted: mine.map((run) => run.compacted).join(", "),
          "threads not compacted exactly once, or with a problem": mine.map((run) => run.wrong).join(", "),
        };
      }),
  );
  printNote(
    `- Measured from the moment the loaded workers are told to start (pg-boss's schema already created) to the last compaction written.${watcher ? "" : `\n- The watcher was not run: git could not check out ${WATCHER_COMMIT} (a shallow clone?).`}`,
  );
}

await readmeBlock("fleet", benchFleet, {
  write: !process.env.FLEET_THREADS && !process.env.FLEET_REPEATS && !process.env.FLEET_LATENCY_MS,
});
