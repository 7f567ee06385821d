/**
 * The library's compaction workers: `worker_threads` created on first use (up to `size`), each with its own
 * connection to the store. A worker is referenced only while it has work, so an idle one never keeps the process
 * alive; `close()` ends them. A worker that dies fails its jobs with WORKER_FAILED (nothing it had not committed is
 * written) and the next job gets a new worker.
 */
import { Worker } from "node:worker_threads";
import { CompactionError, type CompactionErrorCode } from "../../errors.js";
import type { CompactionReport } from "../../engine/report.js";
import { MAX_HELD_SUMMARIES, type RemotePrepared, type WorkerEngineSettings, type WorkerReply, type WorkerRequest } from "./protocol.js";

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

/** Workers of one pool at most, by default. */
export const DEFAULT_WORKERS = 1;

interface Slot {
  worker: Worker;
  /** The worker's module loaded (it said so); an error before that means workers cannot run here. */
  ready: boolean;
  pending: Map<number, { resolve(value: unknown): void; reject(error: unknown): void }>;
  /** Prepared summaries this worker holds. */
  handles: Set<number>;
  dead: boolean;
}

/** Watches the pool's workers (tests end one on purpose; operators may log them). */
export type WorkerObserver = (event: { kind: "started" | "job"; worker: Worker; job?: WorkerRequest["kind"] }) => void;

/**
 * How a worker is started: the built module beside this one in a package; from the TypeScript sources (tests, tsx),
 * through tsx's loader.
 */
function startWorker(entry?: URL): Worker {
  if (entry) return new Worker(entry);
  const here = import.meta.url;
  if (/\.ts$/.test(here)) {
    const entry = new URL("./compaction-worker.ts", here).href;
    return new Worker(`import { register } from "tsx/esm/api"; register(); await import(${JSON.stringify(entry)});`, { eval: true });
  }
  return new Worker(new URL("./compaction-worker.mjs", here));
}

export class CompactionWorkers {
  private readonly slots: Slot[] = [];
  private nextId = 1;
  private turn = 0;
  /**
   * Summaries asked for or held, across the pool: a worker holds every summary it prepared until it is applied or
   * discarded, so no more are asked for than a worker may hold (MAX_HELD_SUMMARIES); the next prepare waits for one
   * to be given back. A burst of threads crossing the limit at once queues here instead of losing summaries.
   */
  private outstanding = 0;
  private readonly waitingForRoom: Array<() => void> = [];
  /**
   * Why workers cannot run in this process (their module failed to load: a bundler left it out, a runtime without
   * worker_threads), once that happened; callers then compact on their own thread.
   */
  unavailable: string | undefined;

  /** `entry`: the worker module's URL, where a bundler moved it (default: beside this module). */
  constructor(
    readonly size: number = DEFAULT_WORKERS,
    private readonly observe?: WorkerObserver,
    private readonly entry?: URL,
  ) {}

  /**
   * Computes a summary of the thread in a worker — of checkpoint `at` when given (the head as a turn left it), else
   * of the head — held there (a handle) until `apply`, or a report of why not.
   */
  async prepare(settings: WorkerEngineSettings, threadId: string, at?: string): Promise<RemotePrepared | CompactionReport> {
    while (this.outstanding >= MAX_HELD_SUMMARIES) await new Promise<void>((room) => this.waitingForRoom.push(room));
    this.outstanding++;
    let held = false;
    try {
      const slot = this.pick();
      const value = (await this.send(slot, { kind: "prepare", settings, threadId, ...(at ? { at } : {}) })) as RemotePrepared | CompactionReport;
      if (value.status === "prepared") {
        slot.handles.add((value as RemotePrepared).handle);
        held = true;
      }
      return value;
    } finally {
      if (!held) this.giveBack(1);
    }
  }

  /** `count` summaries are no longer asked for or held: as many waiting prepares go on. */
  private giveBack(count: number): void {
    this.outstanding = Math.max(0, this.outstanding - count);
    for (let room = 0; room < count && this.waitingForRoom.length > 0; room++) this.waitingForRoom.shift()!();
  }

  /** Writes a held summary onto the thread's current head (rebased if it grew), in the worker that holds it. */
  async apply(prepared: RemotePrepared, busyWaitMs: number): Promise<CompactionReport> {
    const slot = this.slots.find((candidate) => !candidate.dead && candidate.handles.has(prepared.handle));
    if (!slot) {
      throw new CompactionError({
        code: "WORKER_FAILED",
        value: prepared.handle,
        message: `thread ${prepared.threadId}: the compaction worker holding its summary has stopped; nothing was written`,
      });
    }
    const report = (await this.send(slot, { kind: "apply", handle: prepared.handle, busyWaitMs })) as CompactionReport;
    if (report.status !== "skipped" && slot.handles.delete(prepared.handle)) this.giveBack(1);
    return report;
  }

  /** Drops a held summary that will not be applied. */
  discard(prepared: RemotePrepared): void {
    const slot = this.slots.find((candidate) => !candidate.dead && candidate.handles.has(prepared.handle));
    if (!slot) return;
    if (slot.handles.delete(prepared.handle)) this.giveBack(1);
    void this.send(slot, { kind: "discard", handle: prepared.handle }).catch(() => undefined);
  }

  /** Ends every worker holding no summary and running nothing (all of them with `force`). */
  async close({ force = true }: { force?: boolean } = {}): Promise<void> {
    const ending = this.slots.filter((slot) => force || (slot.pending.size === 0 && slot.handles.size === 0));
    for (const slot of ending) {
      slot.dead = true;
      this.slots.splice(this.slots.indexOf(slot), 1);
      this.fail(slot, "the compaction workers were closed");
    }
    await Promise.all(ending.map((slot) => slot.worker.terminate()));
  }

  private pick(): Slot {
    const live = this.slots.filter((slot) => !slot.dead);
    if (live.length < this.size) return this.spawn();
    this.turn = (this.turn + 1) % live.length;
    return live.reduce((best, slot) => (slot.pending.size < best.pending.size ? slot : best), live[this.turn]!);
  }

  private spawn(): Slot {
    if (this.unavailable) throw new CompactionError({ code: "WORKER_FAILED", message: `compaction workers cannot run here: ${this.unavailable}` });
    let worker: Worker;
    try {
      worker = startWorker(this.entry);
    } catch (error) {
      this.unavailable = error instanceof Error ? error.message : String(error);
      throw new CompactionError({ code: "WORKER_FAILED", message: `compaction workers cannot run here: ${this.unavailable}`, cause: error });
    }
    const slot: Slot = { worker, ready: false, pending: new Map(), handles: new Set(), dead: false };
    worker.unref();
    worker.on("message", (reply: WorkerReply | { ready: true }) => {
      if ("ready" in reply) {
        slot.ready = true;
        return;
      }
      const waiting = slot.pending.get(reply.id);
      if (!waiting) return;
      slot.pending.delete(reply.id);
      if (slot.pending.size === 0) worker.unref();
      if (reply.ok) waiting.resolve(reply.value);
      else {
        const { code, message, parameter } = reply.error;
        waiting.reject(code ? new CompactionError({ code: code as CompactionErrorCode, message, ...(parameter ? { parameter } : {}) }) : new Error(message));
      }
    });
    const died = (why: string) => {
      if (slot.dead) return;
      slot.dead = true;
      const index = this.slots.indexOf(slot);
      if (index >= 0) this.slots.splice(index, 1);
      this.fail(slot, why);
    };
    worker.on("error", (error) => {
      if (!slot.ready) this.unavailable ??= `the worker module did not load (${error.message})`;
      died(`the compaction worker failed: ${error.message}`);
    });
    worker.on("exit", (code) => died(`the compaction worker stopped (exit code ${code})`));
    this.slots.push(slot);
    this.observe?.({ kind: "started", worker });
    return slot;
  }

  private fail(slot: Slot, why: string): void {
    for (const [, waiting] of slot.pending) {
      waiting.reject(new CompactionError({ code: "WORKER_FAILED", message: `${why}; nothing was written by the compaction it was running` }));
    }
    slot.pending.clear();
    this.giveBack(slot.handles.size);
    slot.handles.clear();
  }

  private send(slot: Slot, request: DistributiveOmit<WorkerRequest, "id">): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      // Referenced while it works: an awaited compaction keeps the process alive until it ends.
      slot.worker.ref();
      slot.worker.postMessage({ ...request, id } as WorkerRequest);
      this.observe?.({ kind: "job", worker: slot.worker, job: request.kind });
    });
  }
}

const shared = new Map<number, { workers: CompactionWorkers; users: number }>();

/**
 * The process's pool of `size` workers, shared by every wrapper asking for that size (one set of workers per process,
 * however many wrappers a server builds). `release()` ends the workers once no wrapper holds the pool.
 */
export function acquireWorkers(size: number): { workers: CompactionWorkers; release(): Promise<void> } {
  let entry = shared.get(size);
  if (!entry) shared.set(size, (entry = { workers: new CompactionWorkers(size), users: 0 }));
  entry.users++;
  const held = entry;
  let released = false;
  return {
    workers: held.workers,
    release: async () => {
      if (released) return;
      released = true;
      held.users--;
      if (held.users > 0) return;
      if (shared.get(size) === held) shared.delete(size);
      await held.workers.close();
    },
  };
}
