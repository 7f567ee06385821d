/**
 * Host slots: at most `count` compactions at once on one machine, however many worker processes run there.
 *
 * A compaction is CPU-bound (the offline summarizer, the serialization); a worker process beyond the machine's cores
 * adds no throughput, only contention: the same compactions cost more CPU each (`npm run bench:fleet`). A slot is a
 * listening local socket named after it — an abstract Unix socket on Linux, a named pipe on Windows, a socket file
 * elsewhere — so the operating system frees it when its process dies: a worker killed mid-compaction never holds a
 * slot, and there is no lock file to clean up. A process that finds every slot taken connects to each and waits,
 * with no polling: its connection closes when the holder gives the slot back or dies, and it tries again.
 */
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pause } from "../../pause.js";

/** A waiter tries again at least this often (ms), whatever it was told: a safety net, not the way it is woken. */
const RECHECK_MS = 1_000;

export interface HostSlot {
  /** Gives the slot back (at once: the next try anywhere on the machine can take it). */
  release(): void;
  /** Waiters (in any process) connected to this slot, to be woken when it is given back. */
  waiting(): number;
}

export class HostSlots {
  /**
   * @param count slots on this machine
   * @param name the slots' name: processes that pass the same name share them
   */
  constructor(
    readonly count: number,
    readonly name = "langgraph-compaction",
  ) {}

  /**
   * A free slot, waiting for one; undefined once `signal` aborts. `deferMs`: first wait this long (a process that
   * should let others go first).
   */
  async acquire(signal?: AbortSignal, { deferMs = 0 }: { deferMs?: number } = {}): Promise<HostSlot | undefined> {
    // Starting from a slot of its own: processes do not all try slot 0 first.
    const offset = Math.floor(Math.random() * this.count);
    if (deferMs > 0) await pause(deferMs, signal);
    while (!signal?.aborted) {
      const slot = await this.tryAcquire(offset);
      if (slot) return slot;
      await this.released(signal);
    }
    return undefined;
  }

  /** A free slot, or undefined when every one is taken (no wait); tried from slot `from` on. */
  async tryAcquire(from = 0): Promise<HostSlot | undefined> {
    for (let index = 0; index < this.count; index++) {
      const slot = await this.tryTake((from + index) % this.count);
      if (slot) return slot;
    }
    return undefined;
  }

  /** Where slot `index` listens. */
  address(index: number): string {
    const name = `${this.name}-slot-${index}`;
    if (process.platform === "win32") return `\\\\?\\pipe\\${name}`;
    if (process.platform === "linux") return `\0${name}`;
    return join(tmpdir(), `${name}.sock`);
  }

  /**
   * Resolves when a slot may have been given back: a connection to a holder closed (it released the slot or died),
   * could not be made (freed meanwhile), or `signal` aborted.
   */
  private released(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const sockets = Array.from({ length: this.count }, (_, index) => createConnection({ path: this.address(index) }));
      const timer = setTimeout(done, RECHECK_MS);
      signal?.addEventListener("abort", done, { once: true });
      for (const socket of sockets) {
        socket.once("close", done);
        socket.on("error", () => undefined);
      }
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        for (const socket of sockets) {
          socket.off("close", done);
          socket.destroy();
        }
        resolve();
      }
    });
  }

  private async tryTake(index: number): Promise<HostSlot | undefined> {
    const address = this.address(index);
    const server = await listen(address);
    if (server) return holding(server);
    // A socket file left by a process that died (not Linux's abstract sockets, not Windows' pipes): nobody answers.
    if (process.platform !== "linux" && process.platform !== "win32" && !(await answers(address))) {
      try {
        unlinkSync(address);
      } catch {
        // Another process removed it first.
      }
      const retried = await listen(address);
      if (retried) return holding(retried);
    }
    return undefined;
  }
}

/** The slot `server` holds: its release closes the waiters' connections, which wakes them. */
function holding(server: Server): HostSlot {
  return {
    release: () => {
      server.close();
      for (const waiter of waiters.get(server) ?? []) waiter.destroy();
      waiters.delete(server);
    },
    waiting: () => waiters.get(server)?.size ?? 0,
  };
}

/** The connections of the processes waiting for a slot, per server holding it. */
const waiters = new WeakMap<Server, Set<Socket>>();

/** A server listening at `address`, or undefined when another process holds it. */
function listen(address: string): Promise<Server | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => {
      // Kept open until the slot is given back; never keeping this process alive.
      socket.unref();
      socket.on("error", () => undefined);
      const set = waiters.get(server) ?? new Set<Socket>();
      set.add(socket);
      socket.once("close", () => set.delete(socket));
      waiters.set(server, set);
    });
    server.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE") resolve(undefined);
      else reject(error);
    });
    server.listen({ path: address, exclusive: true }, () => {
      // A slot never keeps its process alive.
      server.unref();
      resolve(server);
    });
  });
}

/** Whether a process is listening at `address`. */
function answers(address: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ path: address });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
