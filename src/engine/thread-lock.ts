/**
 * A per-thread lock within one process: two writes of the same thread never overlap, and a turn started by the
 * CompactingSupervisor waits for a write in flight on its thread (milliseconds: summaries are computed outside). Keyed per store object, so two stores
 * holding the same thread id do not block each other.
 */
export class ThreadLocks {
  private readonly tails = new WeakMap<object, Map<string, Promise<unknown>>>();
  private readonly queued = new WeakMap<object, Map<string, number>>();

  /** Run `task` once every earlier task on (`store`, `threadId`) has settled. */
  run<T>(store: object, threadId: string, task: () => Promise<T>): Promise<T> {
    let byThread = this.tails.get(store);
    if (!byThread) {
      byThread = new Map();
      this.tails.set(store, byThread);
    }
    let queued = this.queued.get(store);
    if (!queued) {
      queued = new Map();
      this.queued.set(store, queued);
    }
    queued.set(threadId, (queued.get(threadId) ?? 0) + 1);
    const start = () => {
      const left = queued.get(threadId)! - 1;
      if (left === 0) queued.delete(threadId);
      else queued.set(threadId, left);
      return task();
    };
    const previous = byThread.get(threadId) ?? Promise.resolve();
    const result = previous.then(start, start);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    byThread.set(threadId, tail);
    void tail.then(() => {
      if (byThread.get(threadId) === tail) byThread.delete(threadId);
    });
    return result;
  }

  /** Tasks on (`store`, `threadId`) waiting for an earlier one to settle (not started yet). */
  waiting(store: object, threadId: string): number {
    return this.queued.get(store)?.get(threadId) ?? 0;
  }

  /** Resolves once every task queued so far on (`store`, `threadId`) has settled. */
  async idle(store: object, threadId: string): Promise<void> {
    await this.tails.get(store)?.get(threadId);
  }
}

/** The process-wide lock table of writes, shared by every HistoryManager: held for milliseconds. */
export const threadLocks = new ThreadLocks();

/**
 * The process-wide lock table of summaries: one summary at a time per thread (so one prefix is never summarized
 * twice in a process). Held while a summarizer runs; turns never wait for it.
 */
export const summaryLocks = new ThreadLocks();
