/**
 * What a CompactingSupervisor remembers about each thread, in one bounded table: the count after the last turn, the
 * summary in flight or ready, the turns spent over the limit. Bounded by a number of threads (each record is a few
 * hundred bytes, message arrays excepted: a ready summary holds its prefix until it is applied or discarded); the
 * least recently used idle records are dropped first, and a dropped thread is simply read again on its next turn.
 */
import type { PreparedCompaction } from "../../engine/history-manager.js";
import type { ProviderUsage } from "../../engine/calibration.js";
import type { CompactedReport } from "../../engine/report.js";
import { addSummarizerTokens, type SummarizerTokens } from "../../engine/summarizer-tokens.js";
import type { CircuitBreaker } from "../../engine/circuit-breaker.js";
import { ThreadCompaction, type CompactionRules } from "../../engine/thread-compaction.js";

/** The most threads whose state the wrapper keeps; the least recently used idle ones are forgotten first. */
export const MAX_THREADS = 10_000;

export interface ThreadRecord {
  readonly threadId: string;
  /** Tokens of the thread after the last turn through this wrapper (or its last read): calibrated where it can be. */
  count?: number;
  /** Messages of the thread at that count (a trigger on messages reads it). */
  messageCount?: number;
  /** Provider tokens per tokenizer token at that count (1 without usage figures): scales the next input's count. */
  ratio?: number;
  /** The provider's figures of the last call counted, when its reply carried them (compactionHealth). */
  usage?: ProviderUsage;
  /** The prompt cache this wrapper's compactions of the thread broke, in tokens (their reports' `rewrittenTokens`). */
  rewritten?: number;
  /** Compactions of the thread that kept less than `keep` asked for (their reports' `keptLess`). */
  keptLess?: number;
  /** The tokens of the summarizer's own calls for the thread (their reports' `summarizerTokens`, unapplied ones too). */
  summarizerTokens?: SummarizerTokens;
  /** Where the thread's compaction stands: the summary in flight or ready, the turns in flight, the prune after. */
  readonly compaction: ThreadCompaction<PreparedCompaction>;
  /** The invalid history last told for the thread (told once, until the thread's history changes what is wrong). */
  toldInvalidHistory?: string;
  /** The last compaction that landed. */
  lastLanded?: CompactedReport;
  /** Compactions that landed and no `streamTokens` stream has reported yet (the newest UNSTREAMED_KEPT). */
  unstreamed: CompactedReport[];
}

/** Landed compactions kept per thread for the next `streamTokens` stream (a thread only ever invoked keeps the newest). */
export const UNSTREAMED_KEPT = 16;

/**
 * A compaction landed on `record`'s thread: its count, the cache it broke, its summarizer's tokens, and the report
 * kept for the streams (the newest UNSTREAMED_KEPT).
 */
export function recordLanded(record: ThreadRecord, report: CompactedReport): void {
  record.count = report.tokensAfter;
  record.messageCount = report.messagesAfter;
  record.rewritten = (record.rewritten ?? 0) + report.rewrittenTokens;
  if (report.keptLess) record.keptLess = (record.keptLess ?? 0) + 1;
  recordSummarizerTokens(record, report.summarizerTokens);
  record.lastLanded = report;
  keepUnstreamed(record, report);
}

/** A summary's own tokens, added to the thread's (whether it landed or not: it was billed). */
export function recordSummarizerTokens(record: ThreadRecord, tokens: SummarizerTokens | undefined): void {
  record.summarizerTokens = addSummarizerTokens(record.summarizerTokens, tokens);
}

function keepUnstreamed(record: ThreadRecord, report: CompactedReport): void {
  record.unstreamed.push(report);
  if (record.unstreamed.length > UNSTREAMED_KEPT) record.unstreamed.shift();
}

/** The compactions of `record` no stream has reported yet, oldest first; they count as reported from now on. */
export function takeUnstreamed(record: ThreadRecord | undefined): CompactedReport[] {
  if (!record || record.unstreamed.length === 0) return [];
  return record.unstreamed.splice(0);
}

export class ThreadRecords {
  private readonly records = new Map<string, ThreadRecord>();

  constructor(
    readonly maxThreads: number,
    private readonly rules: CompactionRules,
    private readonly breaker: CircuitBreaker,
  ) {}

  /** The thread's record, created when missing; marks it most recently used. */
  get(threadId: string): ThreadRecord {
    let record = this.records.get(threadId);
    if (record) {
      this.records.delete(threadId);
    } else {
      record = { threadId, compaction: new ThreadCompaction(threadId, this.rules, this.breaker), unstreamed: [] };
      if (this.records.size >= this.maxThreads) this.evict();
    }
    this.records.set(threadId, record);
    return record;
  }

  /** The record when there is one, without touching its recency. */
  peek(threadId: string): ThreadRecord | undefined {
    return this.records.get(threadId);
  }

  /** Drop the oldest tenth of the idle records at once (one by one would rescan deleted slots every time). */
  private evict(): void {
    let toDrop = Math.max(1, Math.floor(this.maxThreads / 10));
    for (const [threadId, record] of this.records) {
      if (toDrop === 0) break;
      if (record.compaction.busy) continue;
      this.records.delete(threadId);
      toDrop--;
    }
  }
}
