/**
 * The messages between the application's thread and a compaction worker. Everything crosses as plain data
 * (structured clone): where the store is, the resolved policy, the thread id; back come reports and handles.
 */
import type { CompactionReport } from "../../engine/report.js";
import type { CompactionPolicy } from "../../engine/policy.js";
import type { RecallOptions } from "../../engine/manager-options.js";
import type { SummaryRole } from "../../messages/summary-message.js";
import type { StoreLocation } from "../../store/backends.js";

/**
 * The HistoryManager options the wrapper's engine and a worker's are both built from (the wrapper spreads the same
 * object into its own): every part plain data, so the same thread gets the same plan on either side.
 */
/**
 * Prepared summaries a worker holds at most (each holds the messages it replaces until it is applied): the pool asks
 * for no more than this many at once, across its workers.
 */
export const MAX_HELD_SUMMARIES = 256;

export interface EngineSettings {
  policy: CompactionPolicy;
  recall?: boolean | RecallOptions;
  summaryRole?: SummaryRole;
  summaryTimeoutMs?: number;
}

/** What a worker needs to build the same engine as the application's: where the store is, and the engine settings. */
export interface WorkerEngineSettings extends EngineSettings {
  location: StoreLocation;
}

/** The engine settings of `settings`, as HistoryManager options. */
export function engineSettingsOf({ policy, recall, summaryRole, summaryTimeoutMs }: EngineSettings): EngineSettings {
  return { policy, recall, summaryRole, summaryTimeoutMs };
}

export type WorkerRequest =
  | { id: number; kind: "prepare"; settings: WorkerEngineSettings; threadId: string; at?: string }
  | { id: number; kind: "apply"; handle: number; busyWaitMs: number }
  | { id: number; kind: "discard"; handle: number };

/** A summary computed in a worker and held there (the thread's messages never cross back), ready to apply. */
export interface RemotePrepared {
  status: "prepared";
  threadId: string;
  handle: number;
  snapshotCheckpointId: string;
  messagesBefore: number;
  tokensBefore: number;
  /** The id of the summary message it writes: how the store tells whether it landed (a worker that died mid-apply). */
  summaryId: string;
  /** The summarizer that wrote it. */
  summarizer: string;
}

export interface WorkerError {
  code?: string;
  message: string;
  parameter?: string;
}

export type WorkerReply =
  | { id: number; ok: true; value: RemotePrepared | CompactionReport | null }
  | { id: number; ok: false; error: WorkerError };
