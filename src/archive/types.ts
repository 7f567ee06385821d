/**
 * What a runtime asks of the tool-output archive it is given (`archive: new ToolOutputArchive({ … })`): whether a
 * history holds outputs to move, and the history with them moved. The runtimes know this and nothing of how.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { satisfying } from "../options/rules.js";

export interface ArchiveResult {
  messages: BaseMessage[];
  /** Keys written to the store, oldest first. */
  archived: string[];
}

export interface OutputArchive {
  /** Its own store; absent, a runtime in a graph gives the graph's. */
  readonly store?: BaseStore;
  /** True when `archive(messages)` would move something (a cheap check before reading the stored head). */
  hasCandidates(messages: readonly BaseMessage[]): boolean;
  /** `messages` with the outputs moved to its store, else to `store`; written before they are returned. */
  archive(messages: readonly BaseMessage[], where?: { threadId?: string; store?: BaseStore }): Promise<ArchiveResult>;
}

/** The `archive` option of every runtime: an archive (what `new ToolOutputArchive({ … })` makes). */
export const OUTPUT_ARCHIVE = satisfying<OutputArchive>(
  (value) =>
    typeof (value as { archive?: unknown } | null)?.archive === "function" &&
    typeof (value as { hasCandidates?: unknown } | null)?.hasCandidates === "function",
  "a tool-output archive (new ToolOutputArchive({ store, thresholdTokens }) from langgraph-compaction)",
);
