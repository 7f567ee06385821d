/**
 * The wrapper's turn lifecycle on each thread: count, summarize in the background, land the summary between turns.
 *
 * A turn never waits for a summary unless the window is at risk. After a turn, the thread is counted; over the
 * limit, a summary of a snapshot of the head is computed in the background while turns go on; once ready, it is
 * applied at the first moment no turn of this wrapper runs on the thread (right after the turn in flight ends) by a
 * rebasing compare-and-swap that takes milliseconds. Before a turn, the wrapper waits only for that write, or —
 * when the scheduler says so (the stored thread plus the input exceed `hardLimit`, or `lateness` turns have
 * started over the limit: engine/scheduler.ts) — for the summary in flight, or compacts synchronously when none is.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { CompactionReport } from "../../engine/report.js";
import type { PrepareOptions } from "../../engine/manager-options.js";
import { threadLocks } from "../../engine/thread-lock.js";
import { CompactionError } from "../../errors.js";
import { storedMessages, storedMessagesOrEmpty } from "./state-messages.js";
import { recordLanded, recordSummarizerTokens, type ThreadRecord } from "./thread-records.js";
import { inputMessages } from "./turn-input.js";
import { turnOver } from "../../slices.js";
import { archiveThread } from "./archive-thread.js";
import { pruneAfter } from "./prune-after.js";
import { startsUnread, staysUncounted } from "./unread-head.js";
import { BackgroundWork } from "./background-work.js";
import { checkpointBeforeTurn } from "./overflow.js";
import type { ThreadCompactorParts, ThreadConfig } from "./thread-compactor-parts.js";

export type { StateReader, ThreadCompactorParts, ThreadConfig } from "./thread-compactor-parts.js";

/** How long a compaction before a turn (the window at risk) waits for another process's turn to end. */
const SYNC_BUSY_WAIT_MS = 5_000;

export class ThreadCompactor {
  /** Background work in flight: what the wrapper's flush() and close() wait for (background-work.ts). */
  readonly work = new BackgroundWork();

  constructor(private readonly parts: ThreadCompactorParts) {}

  /** Counts the input, and compacts first when the window is at risk. Marks the turn in flight. */
  async beforeTurn(threadId: string, input: unknown, config: ThreadConfig): Promise<ThreadRecord> {
    const { records, manager, graph } = this.parts;
    const { counter, checkpointer } = manager;
    const record = records.get(threadId);
    this.work.turnStarted();
    await record.compaction.settling;
    await record.compaction.applying;
    await threadLocks.idle(checkpointer, threadId);
    let stored = record.count;
    const input_ = inputMessages(input);
    // A thread not counted yet whose stored size proves it under the limit runs without a read (unread-head.ts).
    if (stored === undefined && (await startsUnread(record, manager, input_))) return record;
    const inputTokens = Math.ceil(counter.countMessages(input_) * (record.ratio ?? 1));
    if (stored === undefined || record.compaction.atRisk(stored + inputTokens)) {
      const state = await graph.getState({ configurable: { ...config.configurable } });
      // A thread whose messages cannot be counted runs as it is; settle() reports why after the turn.
      const messages = storedMessagesOrEmpty(state?.values, threadId);
      // Reading the thread, counting it and the turn are phases of their own (slices.ts).
      await turnOver();
      // A new (or empty) thread holds nothing to compact: its first turn runs as it is. A count that fails (a
      // tokenCounter that answers no number) is told as a compaction's failure, and the turn runs as it is.
      let measured: Awaited<ReturnType<typeof manager.calibration.count>>;
      try {
        measured = await manager.calibration.count(messages);
      } catch (error) {
        await this.parts.events.error(error, threadId);
        record.compaction.inFlight++;
        return record;
      }
      stored = messages.length === 0 ? 0 : measured.tokens;
      record.count = stored;
      record.messageCount = messages.length;
      record.ratio = measured.ratio;
      await turnOver();
    }
    // What the turn's first model call receives: the stored thread and the input (a new thread holds nothing to compact).
    const tokens = stored === 0 ? 0 : stored + inputTokens;
    const messageCount = record.messageCount === undefined ? undefined : record.messageCount + input_.length;
    const decision = record.compaction.starting(tokens, messageCount);
    if (decision === "wait" || decision === "rescue")
      await this.compactBeforeTurn(record, config, decision === "rescue");
    else if (decision === "apply" && record.compaction.inFlight === 0) await this.apply(record, config, 0);
    record.compaction.inFlight++;
    return record;
  }

  /**
   * The path on the turn: wait for the summary in flight (or compute one when none is) and apply it. `rescue` (the
   * window at risk): a head another process is mid-turn on is waited for, and a summary that could not land is
   * computed again. Past the bound on lateness only, a busy head keeps the summary ready for the next gap and the
   * turn goes on: the bound is on computing the summary; another process's turn is not this one's to wait for.
   */
  private async compactBeforeTurn(record: ThreadRecord, config: ThreadConfig, rescue: boolean): Promise<void> {
    const before = record.lastLanded;
    const busyWaitMs = rescue ? SYNC_BUSY_WAIT_MS : 0;
    const inFlight = record.compaction.preparing !== undefined || record.compaction.ready !== undefined;
    // The summary in flight lands on its own once ready (no turn of this wrapper runs on the thread now).
    await record.compaction.preparing;
    await record.compaction.applying;
    if (record.compaction.ready) await this.apply(record, config, busyWaitMs);
    if (record.lastLanded === before && (rescue || !inFlight)) {
      if (rescue) record.compaction.retryNow();
      this.startCompaction(record, config, busyWaitMs);
      await record.compaction.preparing;
    }
    record.compaction.waited();
  }

  /**
   * After a turn (`messages`: the turn's final state, from the call's result or its stream; read back from the
   * thread when absent). Returns the compaction that landed during it, if one did.
   */
  async afterTurn(
    record: ThreadRecord,
    config: ThreadConfig,
    messages: BaseMessage[] | undefined,
  ): Promise<CompactionReport | undefined> {
    record.compaction.inFlight = Math.max(0, record.compaction.inFlight - 1);
    const settling = record.compaction.settle(this.settle(record, config, messages));
    this.work.track(settling);
    let landed = await settling;
    if (!this.parts.options.background && record.compaction.preparing) {
      const before = record.lastLanded;
      await record.compaction.preparing;
      if (record.lastLanded !== before) landed = record.lastLanded;
    }
    // keepCheckpoints: every turn ends with a prune of what it made redundant (a few checkpoints, the transcript
    // asked about their messages only), so the store holds the newest `keep` between turns, not every checkpoint
    // since the last compaction. A compaction in flight prunes when it lands instead.
    if (!record.compaction.preparing && !record.compaction.ready)
      await pruneAfter(record, this.parts, (task) => this.work.track(task));
    return landed;
  }

  /** A turn that threw: it is no longer in flight, and a ready summary may land. */
  async turnFailed(record: ThreadRecord, config: ThreadConfig): Promise<void> {
    record.compaction.inFlight = Math.max(0, record.compaction.inFlight - 1);
    if (record.compaction.ready && record.compaction.inFlight === 0) await this.apply(record, config, 0);
  }

  /** Count the thread; apply a ready summary, or start one when over the limit. Never throws. */
  private async settle(
    record: ThreadRecord,
    config: ThreadConfig,
    messages: BaseMessage[] | undefined,
  ): Promise<CompactionReport | undefined> {
    const { threadId } = record;
    const { archive, graph, manager } = this.parts;
    try {
      let current = messages;
      // The stored head is read only when the turn's own state shows something to archive (or carried no state).
      if (archive && (!current || archive.hasCandidates(current)))
        current = (await archiveThread(this.parts.manager, archive, threadId)) ?? current;
      if (!current) {
        const state = await graph.getState({ configurable: { ...config.configurable } });
        current = storedMessages(state?.values, threadId);
      }
      if (await staysUncounted(record, manager, current)) return undefined;
      // Counting is a phase of its own, apart from the turn's last checkpoint write (slices.ts).
      await turnOver();
      const measured = await manager.calibration.count(current);
      const { tokens, ratio, usage } = measured;
      record.count = tokens;
      record.messageCount = current.length;
      record.ratio = ratio;
      record.usage = usage;
      record.toldInvalidHistory = undefined;
      const decision = record.compaction.ended(tokens, current.length);
      if (decision === "apply") return await this.apply(record, config, 0);
      // The summary starts from this count when the head it reads holds these messages: counted once.
      if (decision === "start") this.startCompaction(record, config, 0, { messages: current, measured });
    } catch (error) {
      // A history that cannot be compacted as it is (a message LangChain does not take for one) is told once, not
      // on every turn; the thread goes on uncompacted until it is fixed.
      const invalid = CompactionError.isInstance(error) && error.code === "INVALID_HISTORY" ? error.message : undefined;
      if (invalid !== undefined && record.toldInvalidHistory === invalid) return undefined;
      record.toldInvalidHistory = invalid;
      await this.parts.events.error(error, threadId);
    }
    return undefined;
  }

  /**
   * Compute a summary in the background (`record.compaction.preparing`); once ready, apply it if no turn runs on the thread,
   * else leave it for the end of the turn in flight. A strategy compacts and writes in one go instead.
   */
  private startCompaction(
    record: ThreadRecord,
    config: ThreadConfig,
    busyWaitMs: number,
    counted?: PrepareOptions["counted"],
  ): void {
    const { threadId } = record;
    const { strategy, manager } = this.parts;
    if (this.work.closed || record.compaction.paused) return;
    const tokensAtStart = record.count ?? 0;
    const summary = (async () => {
      try {
        if (strategy) {
          const report = await strategy.compactThread(manager, threadId);
          await this.outcome(record, report, config, tokensAtStart);
          return undefined;
        }
        const result = await manager.prepareCompaction(
          { configurable: { thread_id: threadId } },
          counted ? { counted } : {},
        );
        if (result.status === "prepared") return result;
        await this.outcome(record, result, config, tokensAtStart);
      } catch (error) {
        await this.fail(record, error);
      }
      return undefined;
    })();
    const preparing = record.compaction.prepare(summary, async () => {
      if (record.compaction.ready && record.compaction.inFlight === 0) await this.apply(record, config, busyWaitMs);
    });
    this.work.track(preparing);
  }

  /** Apply the ready summary now (a rebasing compare-and-swap). Never throws. */
  private async apply(
    record: ThreadRecord,
    config: ThreadConfig,
    busyWaitMs: number,
  ): Promise<CompactionReport | undefined> {
    const prepared = record.compaction.ready;
    if (!prepared) return undefined;
    const write = (async () => {
      try {
        const report = await this.parts.manager.applyCompaction(prepared, { busyWaitMs });
        // A busy head (another process mid-turn, an interrupt) keeps the summary for the next gap.
        if (report.status !== "skipped") record.compaction.done(prepared);
        await this.outcome(record, report, config, record.count ?? 0);
        return report;
      } catch (error) {
        record.compaction.done(prepared);
        await this.fail(record, error);
        return undefined;
      }
    })();
    return record.compaction.apply(write);
  }

  /** Every outcome reaches `onCompaction`; a landed one also the callbacks, the count and the prune after it. */
  private async outcome(
    record: ThreadRecord,
    report: CompactionReport,
    config: ThreadConfig,
    tokensAtStart: number,
  ): Promise<void> {
    if (report.status === "compacted") {
      record.compaction.landed();
      recordLanded(record, report);
      await this.parts.events.outcome(report, config);
      await pruneAfter(record, this.parts, (task) => this.work.track(task));
      return;
    } else if (report.status === "skipped" && report.summarizerMs !== undefined) {
      recordSummarizerTokens(record, report.summarizerTokens);
      // A summary was written but would not have ended under the ceiling: no new summary before the thread has grown
      // by the margin again, so the summarizer is not called on every turn for nothing. (A skip decided by the plan
      // alone costs no summary and is tried again after the next turn: a newer turn may make more summarizable.)
      record.compaction.backOff(tokensAtStart);
    }
    await this.parts.events.outcome(report, config);
  }

  /** A failed compaction: reported, and counted by the circuit breaker (which may pause the thread's compaction). */
  private async fail(record: ThreadRecord, error: unknown): Promise<void> {
    await this.parts.events.error(error, record.threadId);
    const paused = record.compaction.failed(error);
    if (paused) await this.parts.events.error(paused, record.threadId);
  }

  /** Overflow recovery: rewrite the thread from before the failed turn, compacted harder. True when retryable. */
  async recover(threadId: string, config: ThreadConfig): Promise<boolean> {
    const { manager, records } = this.parts;
    const record = records.get(threadId);
    const baseCheckpointId = await checkpointBeforeTurn(manager.checkpointer, threadId);
    if (!baseCheckpointId || record.compaction.paused) return false;
    try {
      const report = await manager.recoverFailedTurn({ configurable: { thread_id: threadId } }, { baseCheckpointId });
      await this.outcome(record, report, config, 0);
      return report.status === "compacted";
    } catch (error) {
      await this.fail(record, error);
      return false;
    }
  }
}
