/**
 * The summaries the in-graph runtime computes off the model call, one per thread, kept for the thread's next call;
 * at most MAX_PENDING (the oldest finished ones go first: threads that never call again do not keep theirs).
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { CompactedMessages, UnwrittenSummary } from "../../engine/summarize-plan.js";

/** Summaries kept for threads' next model calls, at most. */
const MAX_PENDING = 1_000;

export interface Pending {
  snapshot: readonly BaseMessage[];
  /** What the snapshot counted when the summary started (calibrated). */
  tokens: number;
  result: Promise<CompactedMessages | UnwrittenSummary | { error: unknown }>;
  settled: boolean;
}

export class PendingSummaries extends Map<string, Pending> {
  /** Keeps `job` for `key`'s next call, forgetting the oldest finished ones past MAX_PENDING. */
  keep(key: string, job: Pending): Pending {
    this.set(key, job);
    if (this.size > MAX_PENDING) {
      for (const [other, pending] of this) {
        if (this.size <= MAX_PENDING) break;
        if (pending.settled) this.delete(other);
      }
    }
    return job;
  }

  /** Resolves once no summary is in flight. */
  async idle(): Promise<void> {
    for (;;) {
      const running = [...this.values()].filter((job) => !job.settled);
      if (running.length === 0) return;
      await Promise.all(running.map((job) => job.result));
    }
  }
}
