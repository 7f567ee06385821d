/**
 * The wrapper's background work (summaries, their writes, prunes) and what flush() and close() wait for: the work in
 * flight when they are called, with what that work goes on to — not the work of turns started since, so both resolve
 * while turns go on. After close(), no new compaction starts.
 */
export class BackgroundWork {
  /** Each task in flight, with the turns started before it. */
  private readonly pending = new Map<Promise<unknown>, number>();
  /** Turns started through the wrapper so far. */
  private turns = 0;
  /** After close(): no new compaction starts (turns go on as they are). */
  closed = false;

  /** A turn starts: work started from now on is not what an earlier flush() waits for. */
  turnStarted(): void {
    this.turns++;
  }

  /** Tracking adds no path of its own for a rejection: a task's owner handles its outcome (`finally` would not). */
  track(task: Promise<unknown>): void {
    this.pending.set(task, this.turns);
    const done = () => void this.pending.delete(task);
    task.then(done, done);
  }

  /** Resolves once the work in flight when it was called (and what it went on to) has finished. */
  async flush(): Promise<void> {
    const turns = this.turns;
    for (;;) {
      const waiting = [...this.pending].filter(([, started]) => started <= turns).map(([task]) => task);
      if (waiting.length === 0) return;
      await Promise.allSettled(waiting);
    }
  }

  /** Starts no new compaction from now on, and resolves once the work in flight has finished. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }
}
