/**
 * The in-graph runtime's options (the createAgent middleware's and the node's): the shared vocabulary
 * (engine/options.ts) and the step's own, one schema whose input is the options type.
 */
import { z } from "zod";
import { OUTPUT_ARCHIVE } from "../../archive/types.js";
import { COMPACTION_OPTIONS, lateness } from "../../engine/options.js";
import { satisfying } from "../../options/rules.js";
import type { CompactionStreamEvent, InGraphCompactionEvent } from "./compaction-event.js";

const fn = <F>() => satisfying<F>((value) => typeof value === "function", "a function");

export const IN_GRAPH_OPTIONS = COMPACTION_OPTIONS.extend({
  /**
   * Compute the summary off the model call (started after a call that crossed the trigger, applied at a later call).
   * `false`: compact before the call that is over the trigger, waiting for the summary. @default true
   */
  background: z.boolean({ error: "true or false" }).optional(),
  /**
   * How many model calls may start over the trigger while the summary is computed off the call; the next one waits
   * for it (or compacts first). 0, and with `background: false`: every call over the trigger waits. @default 2
   */
  lateness: lateness.optional(),
  /**
   * Tool results above a threshold moved into a BaseStore and replaced by pointers, as the wrapper's `archive` does
   * (`createArchiveReaderTool` reads them back); `store` defaults to the graph's. @default no archive
   */
  archive: OUTPUT_ARCHIVE.optional(),
  /** Told about every compaction written to the state. */
  onCompaction: fn<(event: InGraphCompactionEvent) => void>().optional(),
  /**
   * Told why a compaction was not written (a failing summarizer, a transcript that cannot be written, a summary
   * whose prefix changed: WRITE_CONFLICT); the model call goes on with the history as it was. Without it, the first
   * failure is a process warning (COMPACTION_FAILING).
   */
  onCompactionError: fn<(error: unknown) => void>().optional(),
});

export type InGraphOptions = z.input<typeof IN_GRAPH_OPTIONS>;

export type { CompactionStreamEvent, InGraphCompactionEvent };
