/**
 * The in-graph runtime's options (the createAgent middleware's and the node's), and what it tells `onCompaction`.
 */
import type { NOT_IN_GRAPH } from "../../options/runtime-fields.js";
import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph-checkpoint";
import type { ArchiveOptions } from "../../archive/archive.js";
import type { CircuitBreakerOptions } from "../../engine/circuit-breaker.js";
import type { HistoryManagerOptions } from "../../engine/manager-options.js";
import type { EngineNotice } from "../../engine/notices.js";
import type { CompactionStreamEvent, InGraphCompactionEvent } from "./compaction-event.js";

export interface InGraphOptions extends Omit<
  HistoryManagerOptions,
  "checkpointer" | "onUsageIgnored" | keyof typeof NOT_IN_GRAPH
> {
  /**
   * Where the transcript goes when it is SQLite or Postgres (its recall index). @default the checkpointer of the
   * graph the step runs in
   */
  checkpointer?: BaseCheckpointSaver;
  /** The BaseStore for the transcript when the checkpointer keeps none. @default the graph's store (the Agent Server's) */
  store?: BaseStore;
  /**
   * Compute the summary off the model call (started after a call that crossed the limit, applied at a later call).
   * `false`: compact before the call that is over the limit, waiting for the summary. @default true
   */
  background?: boolean;
  /**
   * Told when a summary started off the model call has finished (well or not): the thread's next model call applies
   * or discards it.
   */
  onSummaryReady?: (event: { threadId: string | undefined }) => void;
  /**
   * Tool results above a threshold moved into a BaseStore and replaced by pointers, as the wrapper's `archive` does
   * (`createArchiveReaderTool` reads them back). `store` defaults to the graph's. @default no archive
   */
  archive?: Omit<ArchiveOptions, "store"> & { store?: BaseStore };
  /** Told about the tool outputs moved to the archive (their keys). */
  onArchive?: (event: { threadId: string | undefined; keys: string[] }) => void;
  /**
   * Pause compaction of a thread after repeated failures, as the wrapper does: its model calls then go on with the
   * history as it is (never waiting for a summary that keeps failing), the pause told once to `onCompactionError`
   * (COMPACTION_PAUSED); `false` disables it. @default { failureThreshold: 3, pauseMs: 600000 }
   */
  circuitBreaker?: CircuitBreakerOptions | false;
  /**
   * Told once per model whose reply carried a usage figure that is not trusted (`USAGE_IGNORED`: counts of its
   * threads use the tokenizer, docs/token-counting.md), and once per thread when a compaction kept less than `keep`
   * asked for (`KEPT_LESS`) or the step cannot compact in its graph (`CANNOT_COMPACT`). Without it, the last two are
   * process warnings. @default process.emitWarning
   */
  onCompactionNotice?: (notice: EngineNotice) => void;
  /** Told about every compaction written to the state. */
  onCompaction?: (event: InGraphCompactionEvent) => void;
  /**
   * Told why a compaction was not written (a failing summarizer, a transcript that cannot be written, a summary
   * whose prefix changed: WRITE_CONFLICT); the model call goes on with the history as it was.
   */
  onCompactionError?: (error: unknown) => void;
}

export type { CompactionStreamEvent, InGraphCompactionEvent };

/** The options of `options` that the HistoryManager takes (the rest are the in-graph runtime's own). */
export function managerOptionsOf(options: InGraphOptions) {
  const {
    checkpointer,
    store,
    background,
    archive,
    circuitBreaker,
    onArchive,
    onSummaryReady,
    onCompaction,
    onCompactionError,
    onCompactionNotice,
    ...managerOptions
  } = options;
  return managerOptions;
}
