/**
 * HistoryManager: read a thread, plan the cut, summarize, and force-write a replacement checkpoint that loses
 * nothing — a compaction's run (compaction-run.ts), the cut (plan.ts), the summary (summarize-plan.ts), the write.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { CompactionError, requireThreadId, storeErrors } from "../errors.js";
import type { Summarizer } from "../summarizers/types.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import type { Calibration } from "./calibration.js";
import { RECOVERY_RATIO, type CompactionPolicy } from "./policy.js";
import { applyPrepared, type PreparedCompaction } from "./apply-prepared.js";
import { compactWithinPolicy, compactWithRetries, fitPlan, planWith, prepareSummary } from "./compaction-run.js";
import {
  BUSY_WAIT_MS,
  MANAGER_OPTIONS,
  requireCheckpointer,
  type CompactOverrides,
  type HistoryManagerOptions,
  type ManagerSettings,
  type PrepareOptions,
} from "./manager-options.js";
import { resolveSettings } from "./settings.js";
import type { CompactionPlan } from "./plan.js";
import { writeHistory } from "./write-history.js";
import type { CompactionReport, SkipCode } from "./report.js";
import { summarizePlan, type CompactedMessages, type UnwrittenSummary } from "./summarize-plan.js";
import { summaryLocks, threadLocks } from "./thread-lock.js";
import { DEFAULT_KEEP_CHECKPOINTS } from "./options.js";
import { pruneAfterCompaction } from "./compaction-run.js";
import type { EditOutcome, PruneOptions, PruneReport } from "./report.js";
import type { ThreadHead } from "../store/read-head.js";
import { threadStoreFor, type ThreadStore } from "../store/thread-store.js";
import type { Notices } from "./notices.js";

export type { CompactOverrides, HistoryManagerOptions, PrepareOptions } from "./manager-options.js";
export type { RecallOptions } from "./options.js";

/** Settings a runtime resolved already, handed to a manager it makes (`HistoryManager.of`). */
class Resolved {
  constructor(readonly settings: ManagerSettings) {}
}
export type { PreparedCompaction } from "./apply-prepared.js";
export type { CompactedMessages } from "./summarize-plan.js";

export class HistoryManager {
  readonly checkpointer: BaseCheckpointSaver;
  readonly summarizer: Summarizer;
  readonly fallbackSummarizer?: Summarizer;
  readonly counter: TokenCounter;
  /** Counts what the provider counts where replies carry usage figures, else the tokenizer's (engine/calibration.ts). */
  readonly calibration: Calibration;
  /** The resolved policy every compaction of this manager follows (the wrapper's, when it made this manager). */
  readonly policy: CompactionPolicy;
  /** The checkpointer's store (heads, checkpoints, the compare-and-swap, the recall index): its writes skip this
   * manager's validation and lock, so it is not in the published types. @internal */
  readonly store: ThreadStore;
  /** What compactions of this manager tell the user when they do less than configured (engine/notices.ts). @internal */
  readonly notices: Notices;
  private readonly settings: ManagerSettings;

  /** @throws CompactionError INVALID_ARGUMENT naming the bad option and its value; MISSING_CHECKPOINTER. */
  constructor(options: HistoryManagerOptions) {
    if (options instanceof Resolved) this.settings = options.settings;
    else {
      const checkpointer = requireCheckpointer((options as { checkpointer?: unknown } | undefined)?.checkpointer);
      const settings = resolveSettings("HistoryManager", MANAGER_OPTIONS, options);
      this.settings = {
        ...settings,
        store: threadStoreFor(checkpointer, { recallLanguage: settings.recall.language }),
      };
    }
    ({
      summarizer: this.summarizer,
      fallbackSummarizer: this.fallbackSummarizer,
      counter: this.counter,
      calibration: this.calibration,
      policy: this.policy,
    } = this.settings);
    this.store = this.settings.store;
    this.checkpointer = this.store.saver;
    this.notices = this.settings.notices;
  }

  /**
   * A manager over settings a runtime resolved already (the wrapper's, the in-graph step's, the worker's): nothing is
   * validated or defaulted twice. @internal
   */
  static of(settings: ManagerSettings): HistoryManager {
    return new HistoryManager(new Resolved(settings) as unknown as HistoryManagerOptions);
  }

  /** The Postgres text search configuration of this manager's recall index. */
  get recallLanguage(): string {
    return this.settings.recall.language;
  }

  /** Which compare-and-swap this manager uses: "sqlite", "postgres", or "generic" (best effort). */
  get backend(): "sqlite" | "postgres" | "generic" {
    return this.settings.store.backend;
  }

  /**
   * The dry run: what `compactThread` would summarize and keep. Pure. A cut given in `overrides` replaces the
   * manager's own. `counts`: the counter's count of each message, when the caller has it.
   */
  planCompaction(
    messages: readonly BaseMessage[],
    overrides: CompactOverrides = {},
    counts?: readonly number[],
  ): CompactionPlan {
    return planWith(this.settings, messages, overrides, counts);
  }

  /**
   * Summarize the oldest part of `messages` and return `[system…, summary, kept…]`. Writes nothing.
   * @throws CompactionError INVALID_HISTORY when the plan is not executable; SUMMARIZER_FAILED when the summarizer
   *   throws, times out, or returns an empty, oversized or error-like text.
   */
  async compactMessages(
    messages: readonly BaseMessage[],
    overrides: CompactOverrides & { replacedCheckpointId?: string } = {},
  ): Promise<CompactedMessages> {
    const plan = this.planCompaction(messages, overrides);
    if (!plan.executable) {
      throw new CompactionError({ code: "INVALID_HISTORY", message: `cannot compact: ${plan.reason}` });
    }
    return summarizePlan(this.settings, plan, overrides.replacedCheckpointId);
  }

  /**
   * Force-write `messages` as the thread's new head: a new checkpoint whose id sorts right after the head, parent
   * the head, `source: "update"`, step + 1, only the `messages` channel changed with its version bumped.
   * Compare-and-swap: lands only if the head is still `expectedCheckpointId` (default: the head read now) and idle.
   * @returns the new and previous checkpoint ids.
   * @throws CompactionError THREAD_NOT_FOUND, THREAD_BUSY, WRITE_CONFLICT, INVALID_HISTORY.
   */
  async replaceThreadHistory(
    config: unknown,
    messages: readonly BaseMessage[],
    { expectedCheckpointId, metadata }: { expectedCheckpointId?: string; metadata?: Record<string, unknown> } = {},
  ): Promise<{ checkpointId: string; previousCheckpointId: string }> {
    const threadId = requireThreadId(config, "replaceThreadHistory");
    return storeErrors(
      threadId,
      threadLocks.run(this.checkpointer, threadId, () =>
        writeHistory(this.settings, threadId, messages, { expectedCheckpointId, metadata }),
      ),
    );
  }

  /**
   * `replaceThreadHistory` for a caller that has just read the head with `readThreadHead` (the wrapper's archive and
   * strategy paths): the write is a compare-and-swap on that head, without deserializing the thread a second time.
   */
  async replaceReadHead(
    threadId: string,
    head: ThreadHead,
    messages: readonly BaseMessage[],
    metadata?: Record<string, unknown>,
  ): Promise<{ checkpointId: string; previousCheckpointId: string }> {
    const write = () =>
      writeHistory(this.settings, threadId, messages, {
        expectedCheckpointId: head.tuple.checkpoint.id,
        metadata,
        knownHead: head,
      });
    return storeErrors(threadId, threadLocks.run(this.checkpointer, threadId, write));
  }

  /**
   * Write a history a strategy computed from `head` (read with `store.readHead`) by the rules a summary is written
   * by: not above `tokenLimit`, never over a busy head, rebased onto turns that landed meanwhile when `head` is still
   * the start of the thread, else nothing (apply-edit.ts, loaded then). The one way a strategy's result is written.
   */
  async applyEdit(
    threadId: string,
    head: ThreadHead,
    messages: readonly BaseMessage[],
    metadata?: (headId: string) => Record<string, unknown>,
  ): Promise<EditOutcome> {
    const { applyEdit } = await import("./apply-edit.js");
    return storeErrors(
      threadId,
      threadLocks.run(this.checkpointer, threadId, () => applyEdit(this.settings, threadId, head, messages, metadata)),
    );
  }

  /**
   * Recovery after a turn failed because the request outgrew the model's window: the head is whatever the failed
   * run left (its input, maybe partial work, an error write). This writes, after that head, a checkpoint made from
   * the last checkpoint before the failed turn (`baseCheckpointId`), with its history compacted harder — so the turn
   * is retried from an idle thread, its input once, the failed attempt kept (recover-turn.ts, loaded then).
   * @returns the report; `skipped` when the pre-turn history cannot be compacted.
   */
  async recoverFailedTurn(
    config: unknown,
    { baseCheckpointId, compactionRatio = RECOVERY_RATIO }: { baseCheckpointId: string; compactionRatio?: number },
  ): Promise<CompactionReport> {
    const threadId = requireThreadId(config, "recoverFailedTurn");
    const { recoverTurn } = await import("./recover-turn.js");
    const plan = (messages: readonly BaseMessage[], overrides: CompactOverrides) =>
      this.planCompaction(messages, overrides);
    return threadLocks.run(this.checkpointer, threadId, () =>
      recoverTurn(this.settings, plan, threadId, baseCheckpointId, compactionRatio),
    );
  }

  /**
   * Read the thread, plan, summarize and write: the summary from a snapshot of the head, without the thread's write
   * lock, then a rebasing compare-and-swap (applyCompaction) that carries over the turns that landed meanwhile; a
   * head whose summarized prefix changed is read and summarized again (3 attempts). Never throws for a thread that
   * cannot be compacted now (busy, interrupted, not over the trigger unless `force`, nothing to summarize, lost every
   * race): the report says why. With a trigger, it aims under the ceiling and is not written above the trigger.
   * `prepared`: a summary of this thread the caller already computed (`prepareCompaction`), written first.
   * @throws CompactionError MISSING_THREAD_ID, THREAD_NOT_FOUND, INVALID_HISTORY (non-message values),
   *   SUMMARIZER_FAILED (nothing was written).
   */
  async compactThread(
    config: unknown,
    overrides: PrepareOptions = {},
    { prepared: first }: { prepared?: PreparedCompaction } = {},
  ): Promise<CompactionReport> {
    const threadId = requireThreadId(config, "compactThread");
    return storeErrors(
      threadId,
      summaryLocks.run(this.checkpointer, threadId, () =>
        compactWithRetries(this.settings, threadId, overrides, first),
      ),
    );
  }

  /**
   * The first half of `compactThread`: read the head (or `configurable.checkpoint_id`), plan, summarize; writes
   * nothing. The summary ready to apply, or a `skipped` report saying why there is none.
   * @throws as compactThread; CHECKPOINT_NOT_FOUND for a checkpoint_id the thread does not have.
   */
  async prepareCompaction(
    config: unknown,
    options: PrepareOptions = {},
  ): Promise<PreparedCompaction | CompactionReport> {
    const threadId = requireThreadId(config, "prepareCompaction");
    const at = (config as { configurable?: { checkpoint_id?: unknown } }).configurable?.checkpoint_id;
    return storeErrors(
      threadId,
      summaryLocks.run(this.checkpointer, threadId, () => prepareSummary(this.settings, threadId, options, false, at)),
    );
  }

  /**
   * The second half: write a prepared summary onto the thread's current head — rebased when the thread only grew
   * since (`report.rebased`), not at all when the summarized prefix changed (`conflict`). A busy head is waited for
   * up to `busyWaitMs` (default 5 s), then `skipped`; the prepared summary stays valid.
   */
  async applyCompaction(
    prepared: PreparedCompaction,
    { busyWaitMs = BUSY_WAIT_MS }: { busyWaitMs?: number } = {},
  ): Promise<CompactionReport> {
    const { report } = await storeErrors(prepared.threadId, applyPrepared(this.settings, prepared, busyWaitMs));
    return pruneAfterCompaction(this.store, this.settings.keepCheckpoints, report);
  }

  /** Delete the checkpoints the transcript makes redundant, keeping the newest `keep` (`keepCheckpoints`, else 3). */
  async pruneThread(config: unknown, { keep, dryRun = false }: PruneOptions = {}): Promise<PruneReport> {
    const threadId = requireThreadId(config, "pruneThread");
    const count = keep ?? this.settings.keepCheckpoints ?? DEFAULT_KEEP_CHECKPOINTS;
    const { pruneStoredThread } = await import("./prune.js");
    return storeErrors(threadId, pruneStoredThread(this.store, threadId, count, dryRun));
  }

  /**
   * Plan, fit and summarize `messages` as every entry point does: aiming under the ceiling, never above the trigger.
   * Writes nothing. The compacted messages, or why there are none. @throws SUMMARIZER_FAILED, INVALID_HISTORY.
   */
  async compactWithinPolicy(
    messages: readonly BaseMessage[],
    given: PrepareOptions = {},
    replacedCheckpointId?: string,
    counts?: readonly number[],
  ): Promise<CompactedMessages | UnwrittenSummary> {
    return compactWithinPolicy(this.settings, messages, given, replacedCheckpointId, counts);
  }

  /**
   * The plan `compactWithinPolicy` summarizes, and its estimate of the tokens after it, or why nothing would be
   * summarized: the script's dry run prints it. Pure.
   */
  fitPlan(
    messages: readonly BaseMessage[],
    given: PrepareOptions = {},
    counts?: readonly number[],
  ): { plan: CompactionPlan; estimate: number } | { skipped: string; code: SkipCode } {
    return fitPlan(this.settings, messages, given, counts);
  }
}
