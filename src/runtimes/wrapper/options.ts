/**
 * CompactingSupervisor's options: the shared vocabulary (engine/options.ts) and the wrapper's own, one schema whose
 * input is the options type; resolved once, at construction (engine/settings.ts).
 */
import { z } from "zod";
import { OUTPUT_ARCHIVE } from "../../archive/types.js";
import { COMPACTION_OPTIONS, keepCheckpoints, lateness } from "../../engine/options.js";
import type { EngineNotice } from "../../engine/notices.js";
import type { CompactionReport } from "../../engine/report.js";
import { satisfying } from "../../options/rules.js";
import { THREAD_STRATEGY } from "../../strategies/types.js";

const fn = <F>() => satisfying<F>((value) => typeof value === "function", "a function");

export const WRAPPER_OPTIONS = COMPACTION_OPTIONS.extend({
  /** Compute the summary after the call returned (true), or before `invoke`/`stream` finish (false). @default true */
  background: z.boolean({ error: "true or false" }).optional(),
  /**
   * How many turns may start over the trigger while the summary is computed in the background; the next one waits
   * for it (or compacts first), whether or not the application ever yields to the event loop. 0: every turn over the
   * trigger waits. @default 2
   */
  lateness: lateness.optional(),
  /**
   * After each turn and each compaction that lands, delete the thread's checkpoints the transcript makes redundant,
   * keeping the newest `keepCheckpoints` (`pruneThread`). Off the turn's path; `flush()` waits for it.
   * @default keep every checkpoint
   */
  keepCheckpoints: keepCheckpoints.optional(),
  /**
   * How to compact instead of the running summary: a strategy or a pipeline from `langgraph-compaction/strategies`
   * (`createStrategy("clear-tool-results")`, `createPipeline([...])`). @default the running summary
   */
  strategy: THREAD_STRATEGY.optional(),
  /**
   * Move large tool outputs into a LangGraph BaseStore after each turn, leaving a pointer in the stored history:
   * `new ToolOutputArchive({ store, thresholdTokens })` (its store is required here: the wrapper has no graph's);
   * `createArchiveReaderTool({ store })` reads them back.
   */
  archive: OUTPUT_ARCHIVE.optional(),
  /**
   * Told of every compaction the wrapper attempted: `status` says whether it wrote a checkpoint (`compacted`), or why
   * not — `skipped` with a `code` to act on (`NOTHING_TO_SUMMARIZE`, `WONT_FIT`, `BUSY`, `INTERRUPTED`) and a
   * `reason`, or `conflict` (the summarized prefix changed meanwhile: the summary was discarded).
   */
  onCompaction: fn<(report: CompactionReport) => void | Promise<void>>().optional(),
  /**
   * Told when a compaction fails (nothing was written; the turn's result is unaffected), when the summary was not
   * applied because its prefix changed (WRITE_CONFLICT), and once when the circuit breaker pauses a thread
   * (COMPACTION_PAUSED). Without it, failures that repeat are a process warning, once.
   */
  onCompactionError: fn<(error: unknown, context: { threadId?: string }) => void | Promise<void>>().optional(),
});

export type CompactingSupervisorOptions = z.input<typeof WRAPPER_OPTIONS>;

/** What the wrapper's engine says without an error (engine/notices.ts): a process warning each. */
export type CompactionNotice = EngineNotice;
