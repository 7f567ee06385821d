/**
 * Where compaction news goes: the caller's hooks (`onCompaction`, `onCompactionOutcome`, `onCompactionError`) and,
 * for a landed compaction, the run's LangChain callbacks as a custom event (tracing tools show it). A hook that
 * throws never breaks the caller's turn: its error goes to `onCompactionError`, whose own errors are dropped.
 */
import { dispatchCustomEvent } from "@langchain/core/callbacks/dispatch";
import { RunnableLambda } from "@langchain/core/runnables";
import type { CompactedReport, CompactionReport } from "../../engine/report.js";
import type { SummarizerChoice } from "../../summarizers/default.js";
import type { CompactingSupervisorOptions, CompactionNotice } from "./options.js";

/** The custom event name under which compactions reach LangChain callbacks (tracing tools show it). */
export const COMPACTION_EVENT = "langgraph_compaction";

/** A traced run named "compaction" that carries the report as a custom event. */
const dispatchCompaction = RunnableLambda.from(async (report: CompactedReport, config) => {
  await dispatchCustomEvent(COMPACTION_EVENT, report, config);
  return report;
});

export type CompactionHooks = Pick<
  CompactingSupervisorOptions,
  "onCompaction" | "onCompactionError" | "onCompactionOutcome" | "onCompactionNotice"
>;

export class CompactionEvents {
  private summarizerSaid = false;

  constructor(
    private readonly hooks: CompactionHooks,
    private readonly summarizer?: SummarizerChoice,
  ) {}

  /** A compaction starts: the first one says which summarizer compactions use (`onCompactionNotice`), once. */
  async starting(): Promise<void> {
    if (this.summarizerSaid || !this.summarizer) return;
    this.summarizerSaid = true;
    try {
      await this.hooks.onCompactionNotice?.({
        code: "SUMMARIZER_CHOSEN",
        message: `Compactions use ${this.summarizer.reason}.`,
        ...this.summarizer,
      });
    } catch (error) {
      await this.error(error);
    }
  }

  /** A notice other than the summarizer's (a usage figure not trusted): `onCompactionNotice`. */
  async notice(notice: CompactionNotice): Promise<void> {
    try {
      await this.hooks.onCompactionNotice?.(notice);
    } catch (error) {
      await this.error(error);
    }
  }

  /** A compaction landed: `onCompaction`, then the run's callbacks. */
  async landed(report: CompactedReport, config: object): Promise<void> {
    const callbacks = (config as { callbacks?: unknown }).callbacks;
    try {
      await this.hooks.onCompaction?.(report);
    } catch (error) {
      await this.error(error, report.threadId);
    }
    if (callbacks) {
      await dispatchCompaction
        .invoke(report, { callbacks: callbacks as never, runName: "compaction", tags: ["langgraph-compaction"] })
        .catch(() => undefined);
    }
  }

  /** Every outcome, written or not. */
  async outcome(report: CompactionReport): Promise<void> {
    try {
      await this.hooks.onCompactionOutcome?.(report);
    } catch (error) {
      await this.error(error, report.threadId);
    }
  }

  async error(error: unknown, threadId?: string): Promise<void> {
    try {
      await this.hooks.onCompactionError?.(error, { threadId });
    } catch {
      // A failing error hook must never break the caller's turn.
    }
  }
}
