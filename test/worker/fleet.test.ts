/**
 * The fleet: four worker processes (CompactionWorker, jobs on pg-boss) over one real Postgres and 40 threads over
 * their limit, one worker SIGKILLed when its first summary starts and one SIGTERMed while its first summary hangs
 * (the phases drive the signals, no timer). Every thread is compacted exactly once on its head's lineage, no two jobs
 * of one thread ever run at once (as the jobs themselves record it), the killed job is run again by another worker,
 * nothing is lost, and the queue is empty at the end.
 */
import { spawn, type ChildProcess } from "node:child_process";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditThread } from "../../src/engine/audit.js";
import { createTestAgent, seedTurns } from "../support/agents.js";
import { childArgs, ROOT } from "../support/child-entry.js";
import { createStore, type TestStore } from "../support/savers.js";

const LIMIT = 1_500;
const THREADS = Array.from({ length: 40 }, (_, index) => `fleet-${index}`);
const config = (thread: string) => ({ configurable: { thread_id: thread } });

interface Worker {
  name: string;
  child: ChildProcess;
  lines: string[];
  exited: Promise<{ signal: NodeJS.Signals | null; at: number }>;
}

function startWorker(store: TestStore, name: string, mode: string, onLine: (line: string) => void): Worker {
  const child = spawn(
    process.execPath,
    [
      ...childArgs("test/support/worker-child.ts"),
      store.location.url!,
      store.location.schema!,
      String(LIMIT),
      mode,
      name,
    ],
    { cwd: ROOT, env: { ...process.env, OPENAI_API_KEY: "" }, stdio: ["ignore", "pipe", "pipe"] },
  );
  const lines: string[] = [];
  let buffer = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      lines.push(line);
      onLine(line);
    }
  });
  child.stderr!.resume();
  const exited = new Promise<{ signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once("exit", (_code, signal) => resolve({ signal, at: Date.now() })),
  );
  return { name, child, lines, exited };
}

/** The compactions on the thread's head's lineage (the head, its parent, and so on). */
async function compactionsInLine(store: TestStore, thread: string): Promise<number> {
  const byId = new Map<string, { parent?: string; compaction: boolean }>();
  for await (const tuple of store.saver.list(config(thread)))
    byId.set(tuple.checkpoint.id, {
      parent: tuple.parentConfig?.configurable?.checkpoint_id as string | undefined,
      compaction: typeof (tuple.metadata as Record<string, unknown> | undefined)?.compaction === "object",
    });
  const head = (await store.saver.getTuple(config(thread)))!.checkpoint.id;
  let count = 0;
  for (let id: string | undefined = head; id; id = byId.get(id)?.parent) if (byId.get(id)?.compaction) count++;
  return count;
}

describe("a fleet of four worker processes on one Postgres (pg-boss)", () => {
  let store: TestStore;
  let admin: pg.Client;
  beforeAll(async () => {
    store = await createStore("postgres");
    admin = new pg.Client({ connectionString: store.location.url });
    await admin.connect();
    const { agent } = createTestAgent(store.saver);
    for (const thread of THREADS) await seedTurns(agent, thread, 30);
  });
  afterAll(async () => {
    await admin.end();
    await store.close();
  });

  it("compacts 40 threads exactly once each through a SIGKILL and a SIGTERM, never two jobs of a thread at once", async () => {
    const queue = `langgraph-compaction_${store.location.schema}`;
    const compacted = new Set<string>();
    let settle!: () => void;
    const allCompacted = new Promise<void>((resolve) => (settle = resolve));
    const heard = (line: string) => {
      const [kind, thread, status] = line.split(" ");
      if (kind === "outcome" && status === "compacted") compacted.add(thread!);
      if (compacted.size === THREADS.length) settle();
    };
    let terminated: number | undefined;
    const workers: Worker[] = [];
    // One after the other, each signal at its worker's first summary: the killed one first, while it is alone.
    workers.push(startWorker(store, "killed", "kill", heard));
    await workers[0]!.exited;
    let hangingStarted!: () => void;
    const hangs = new Promise<void>((resolve) => (hangingStarted = resolve));
    const hanging = startWorker(store, "terminated", "hang", (line) => {
      heard(line);
      // Its first summary hangs: SIGTERM now, with a job in flight.
      if (line.startsWith("summarizing") && terminated === undefined) {
        terminated = Date.now();
        hanging.child.kill("SIGTERM");
        hangingStarted();
      }
    });
    workers.push(hanging);
    await hangs;
    workers.push(startWorker(store, "a", "-", heard), startWorker(store, "b", "-", heard));
    await allCompacted;
    // The queue empties: every job done (the threads' jobs after their compaction find them under the limit).
    for (;;) {
      const { rows } = await admin.query(
        "SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND state < 'completed'",
        [queue],
      );
      if (rows[0].n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    for (const worker of workers.slice(2)) worker.child.kill("SIGTERM");
    const exits = await Promise.all(workers.map((worker) => worker.exited));
    expect(exits.map((exit) => exit.signal)).toEqual(["SIGKILL", null, null, null]);
    expect(workers[1]!.lines.at(-1)).toBe("stopped");

    // Exactly once each, on the head's lineage; nothing lost.
    for (const thread of THREADS) {
      expect(await compactionsInLine(store, thread), thread).toBe(1);
      expect((await auditThread(store.saver, config(thread))).problems, thread).toEqual([]);
    }

    // The jobs' own record: per thread, no two jobs' spans overlap (a killed job's span ends at its worker's death).
    const spans = new Map<string, Array<{ worker: string; job: string; start: number; end: number }>>();
    for (const [index, worker] of workers.entries()) {
      const open = new Map<string, { thread: string; start: number }>();
      for (const line of worker.lines) {
        const [kind, thread, job, at] = line.split(" ");
        if (kind === "job-start") open.set(job!, { thread: thread!, start: Number(at) });
        if (kind === "job-end") {
          const started = open.get(job!)!;
          open.delete(job!);
          (spans.get(thread!) ?? spans.set(thread!, []).get(thread!)!).push({
            worker: worker.name,
            job: job!,
            start: started.start,
            end: Number(at),
          });
        }
      }
      for (const [job, { thread, start }] of open)
        (spans.get(thread) ?? spans.set(thread, []).get(thread)!).push({
          worker: worker.name,
          job,
          start,
          end: exits[index]!.at,
        });
    }
    for (const [thread, list] of spans) {
      const sorted = [...list].sort((a, b) => a.start - b.start);
      for (let index = 1; index < sorted.length; index++)
        expect(sorted[index]!.start, `${thread}: ${JSON.stringify(sorted)}`).toBeGreaterThanOrEqual(
          sorted[index - 1]!.end,
        );
    }

    // The killed worker's jobs (in flight when it died) were each run again, by another worker.
    const all = [...spans.values()].flat();
    const killedJobs = all.filter((span) => span.worker === "killed");
    expect(killedJobs.length).toBeGreaterThanOrEqual(1);
    for (const { job } of killedJobs)
      expect(all.filter((span) => span.job === job && span.worker !== "killed").length, job).toBeGreaterThanOrEqual(1);
  }, 180_000);
});
