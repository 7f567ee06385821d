/**
 * A per-thread lock within one process: two compactions of the same thread never overlap, and a turn started by
 * the CompactingSupervisor waits for a compaction in flight on its thread. Keyed per store object, so two stores
 * holding the same thread id do not block each other.
 */
export class ThreadLocks {
  private readonly tails = new WeakMap<object, Map<string, Promise<unknown>>>();

  /** Run `task` once every earlier task on (`store`, `threadId`) has settled. */
  run<T>(store: object, threadId: string, task: () => Promise<T>): Promise<T> {
    let byThread = this.tails.get(store);
    if (!byThread) {
      byThread = new Map();
      this.tails.set(store, byThread);
    }
    const previous = byThread.get(threadId) ?? Promise.resolve();
    const result = previous.then(task, task);
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

  /** Resolves once every task queued so far on (`store`, `threadId`) has settled. */
  async idle(store: object, threadId: string): Promise<void> {
    await this.tails.get(store)?.get(threadId);
  }
}

/** The process-wide lock table shared by every HistoryManager. */
export const threadLocks = new ThreadLocks();
