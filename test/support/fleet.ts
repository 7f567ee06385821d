/**
 * The fleet's worker processes for the tests (test/support/worker-child.ts, jobs on pg-boss over a test store), and
 * what the tests check of a fleet's run: the compactions on each thread's lineage, the jobs' own record of when they
 * ran (no two of one thread at once), the queue empty at the end.
 */
import { spawn, type ChildProcess } from "node:child_process";
import pg from "pg";
import { expect } from "vitest";
import { auditThread } from "../../src/engine/audit.js";
import { childArgs, ROOT } from "./child-entry.js";
import type { TestStore } from "./savers.js";

export interface FleetWorker {
  name: string;
  child: ChildProcess;
  lines: string[];
  exited: Promise<{ signal: NodeJS.Signals | null; at: number }>;
}

/** A job's span, as its worker printed it (a job its worker died in ends at the death). */
export interface JobSpan {
  worker: string;
  job: string;
  thread: string;
  start: number;
  end: number;
  /** Its worker died in it (no end printed). */
  died: boolean;
}

const config = (thread: string) => ({ configurable: { thread_id: thread } });

/** A worker process on `store` (`mode`: worker-child.ts's), each line it prints told to `onLine`. */
export function startWorker(
  store: TestStore,
  limit: number,
  name: string,
  mode: string,
  onLine: (line: string) => void = () => undefined,
): FleetWorker {
  const child = spawn(
    process.execPath,
    [
      ...childArgs("test/support/worker-child.ts"),
      store.location.url!,
      store.location.schema!,
      String(limit),
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

/** Resolves once `threads` have all been compacted, as the workers' outcome lines tell (pass it as their `onLine`). */
export function compactedAll(threads: readonly string[]): { heard: (line: string) => void; done: Promise<void> } {
  const compacted = new Set<string>();
  let settle!: () => void;
  const done = new Promise<void>((resolve) => (settle = resolve));
  const heard = (line: string) => {
    const [kind, thread, status] = line.split(" ");
    if (kind === "outcome" && status === "compacted") compacted.add(thread!);
    if (threads.every((one) => compacted.has(one))) settle();
  };
  return { heard, done };
}

/** Until the store's queue holds no job queued, retrying or running. */
export async function queueEmptied(store: TestStore): Promise<void> {
  const admin = new pg.Client({ connectionString: store.location.url });
  await admin.connect();
  try {
    for (;;) {
      const { rows } = await admin.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND state < 'completed'",
        [`langgraph-compaction_${store.location.schema}`],
      );
      if (rows[0]!.n === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    await admin.end();
  }
}

/** The compactions on the thread's head's lineage (the head, its parent, and so on). */
export async function compactionsInLine(store: TestStore, thread: string): Promise<number> {
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

/** Every job's span, from the workers' lines; `exits[i]`: when worker i exited. */
export function jobSpans(workers: readonly FleetWorker[], exits: ReadonlyArray<{ at: number }>): JobSpan[] {
  return workers.flatMap((worker, index) => {
    const spans: JobSpan[] = [];
    const open = new Map<string, { thread: string; start: number }>();
    for (const line of worker.lines) {
      const [kind, thread, job, at] = line.split(" ");
      if (kind === "job-start") open.set(job!, { thread: thread!, start: Number(at) });
      if (kind === "job-end") {
        const started = open.get(job!)!;
        open.delete(job!);
        spans.push({
          worker: worker.name,
          job: job!,
          thread: thread!,
          start: started.start,
          end: Number(at),
          died: false,
        });
      }
    }
    for (const [job, { thread, start }] of open)
      spans.push({ worker: worker.name, job, thread, start, end: exits[index]!.at, died: true });
    return spans;
  });
}

/**
 * What every fleet run must leave: each thread compacted exactly once on its head's lineage and nothing lost; no two
 * jobs of one thread at once; every job a worker died in run again by another worker.
 */
export async function expectFleetRun(
  store: TestStore,
  threads: readonly string[],
  spans: readonly JobSpan[],
): Promise<void> {
  for (const thread of threads) {
    expect(await compactionsInLine(store, thread), thread).toBe(1);
    expect((await auditThread(store.saver, config(thread))).problems, thread).toEqual([]);
  }
  const byThread = new Map<string, JobSpan[]>();
  for (const span of spans) (byThread.get(span.thread) ?? byThread.set(span.thread, []).get(span.thread)!).push(span);
  for (const [thread, list] of byThread) {
    const sorted = [...list].sort((a, b) => a.start - b.start);
    for (let index = 1; index < sorted.length; index++)
      expect(sorted[index]!.start, `${thread}: ${JSON.stringify(sorted)}`).toBeGreaterThanOrEqual(
        sorted[index - 1]!.end,
      );
  }
  for (const { job, worker } of spans.filter((span) => span.died))
    expect(spans.filter((span) => span.job === job && span.worker !== worker).length, job).toBeGreaterThanOrEqual(1);
}
