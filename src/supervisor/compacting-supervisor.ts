/**
 * CompactingSupervisor: wraps any compiled LangGraph graph's invoke and stream without changing the graph. After
 * each turn it counts the thread's tokens; over the limit, it compacts the thread through a HistoryManager.
 */

import type { BaseMessage } from "@langchain/core/messages";
import { dispatchCustomEvent } from "@langchain/core/callbacks/dispatch";
import { RunnableLambda } from "@langchain/core/runnables";
import { IterableReadableStream } from "@langchain/core/utils/stream";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { CompactionError, describeValue, requireThreadId } from "../errors.js";
import { HistoryManager } from "../history/history-manager.js";
import type { CompactedReport, CompactionReport } from "../history/report.js";
import { threadLocks } from "../history/thread-lock.js";
import { TokenCounter } from "../tokens/token-counter.js";
import { CircuitBreaker, type BreakerHealth } from "./circuit-breaker.js";
import { ThreadRecords, type ThreadRecord } from "./thread-records.js";
import { ToolOutputArchive } from "../archive/archive.js";
import { resolveStrategy } from "../strategies/registry.js";
import type { Strategy } from "../strategies/types.js";
import { compactWithStrategy } from "../strategies/strategy-compaction.js";
import { readThreadHead, type StateReader } from "../history/thread-state.js";
import { COMPACTION_MARGIN, resolveOptions, type CompactingSupervisorOptions, type ResolvedOptions } from "./options.js";
import { isContextOverflowError } from "./overflow.js";
import { toTokenEvent, type TokenStreamEvent } from "./token-events.js";
import { messagesOf, streamShape } from "./stream-shape.js";
import { inputMessages } from "./turn-input.js";

/** How long a compaction before a turn (the window at risk) waits for another process's turn to end. */
const SYNC_BUSY_WAIT_MS = 5_000;

/** A thread's compaction health (`compactionHealth`). */
export interface CompactionHealth extends BreakerHealth {
  /** Turns that ended over `tokenLimit` since a compaction last landed (a summary in flight counts). */
  turnsOverLimit: number;
  /** The summary of this thread: being computed, ready to land at the next gap between turns, or none. */
  summary: "none" | "computing" | "ready";
}

/** The custom event name under which compactions reach LangChain callbacks (tracing tools show it). */
export const COMPACTION_EVENT = "langgraph_compaction";

/** A traced run named "compaction" that carries the report as a custom event. */
const dispatchCompaction = RunnableLambda.from(async (report: CompactedReport, config) => {
  await dispatchCustomEvent(COMPACTION_EVENT, report, config);
  return report;
});

/* eslint-disable @typescript-eslint/no-explicit-any -- the wrapper is generic over every compiled graph's own types */
/** What the wrapper needs from a compiled graph (a `CompiledStateGraph`, `createReactAgent`, `createSupervisor`). */
export interface CompactableGraph {
  invoke(input: any, config?: any): Promise<any>;
  stream(input: any, config?: any): Promise<AsyncIterable<any>>;
  getState(config: any, options?: any): Promise<any>;
  getStateHistory(config: any, options?: any): AsyncIterableIterator<any>;
  updateState(config: any, values: any, asNode?: any): Promise<any>;
  checkpointer?: BaseCheckpointSaver | boolean;
  channels?: Record<string, unknown>;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

type ThreadConfig = { configurable: { thread_id: string | number; checkpoint_ns?: string } } & Record<string, unknown>;

export class CompactingSupervisor<G extends CompactableGraph = CompactableGraph> {
  readonly graph: G;
  readonly manager: HistoryManager;
  readonly counter: TokenCounter;
  readonly options: ResolvedOptions;
  private readonly checkpointer: BaseCheckpointSaver;
  private readonly hooks: Pick<CompactingSupervisorOptions, "onCompaction" | "onCompactionError" | "onCompactionOutcome">;
  /** Background work in flight (for flush). */
  private readonly pending = new Set<Promise<unknown>>();
  private readonly records: ThreadRecords;
  private readonly breaker: CircuitBreaker;
  private readonly archive?: ToolOutputArchive;
  private readonly strategy?: Strategy;

  /**
   * @throws CompactionError MISSING_CHECKPOINTER when the graph was compiled without a checkpointer;
   *   INVALID_ARGUMENT naming the bad option and its value.
   */
  constructor(graph: G, options: CompactingSupervisorOptions) {
    if (typeof graph !== "object" || graph === null || typeof graph.invoke !== "function" || typeof graph.stream !== "function") {
      throw new CompactionError({
        code: "INVALID_ARGUMENT",
        parameter: "graph",
        value: graph,
        message: `graph must be a compiled LangGraph graph (the result of .compile(), createReactAgent or createSupervisor(...).compile()); got ${describeValue(graph)}`,
      });
    }
    const checkpointer = graph.checkpointer;
    if (typeof checkpointer !== "object" || checkpointer === null) {
      throw new CompactionError({
        code: "MISSING_CHECKPOINTER",
        parameter: "graph.checkpointer",
        value: checkpointer,
        message: `the graph has no checkpointer (${describeValue(checkpointer)}), so there is no stored thread to compact: compile it with { checkpointer } (MemorySaver, SqliteSaver, PostgresSaver)`,
      });
    }
    if (graph.channels && !("messages" in graph.channels)) {
      throw new CompactionError({
        code: "INVALID_ARGUMENT",
        parameter: "graph",
        value: Object.keys(graph.channels).filter((name) => !name.startsWith("branch:") && !name.startsWith("__")),
        message: `the graph has no "messages" channel (its channels: ${Object.keys(graph.channels).filter((name) => !name.startsWith("branch:") && !name.startsWith("__")).join(", ")}); compaction needs a messages state such as MessagesAnnotation`,
      });
    }
    this.graph = graph;
    this.options = resolveOptions(options);
    this.checkpointer = checkpointer;
    this.counter = new TokenCounter({ model: this.options.modelName, cacheBytes: this.options.cacheBytes });
    this.hooks = { onCompaction: options.onCompaction, onCompactionError: options.onCompactionError, onCompactionOutcome: options.onCompactionOutcome };
    this.records = new ThreadRecords(this.options.maxThreads);
    this.breaker = new CircuitBreaker(this.options.failureThreshold, this.options.pauseMs, this.options.clock, this.options.maxThreads);
    if (options.strategy !== undefined) this.strategy = resolveStrategy(options.strategy);
    if (options.archive !== undefined) this.archive = new ToolOutputArchive({ pinned: options.pinned, ...options.archive, counter: this.counter });
    this.manager = new HistoryManager({
      checkpointer,
      summarizer: options.summarizer,
      fallbackSummarizer: options.fallbackSummarizer,
      compactionRatio: this.options.compactionRatio,
      keepTokens: this.options.keepTokens,
      targetTokens: this.options.targetTokens,
      summaryTokens: this.options.summaryTokens,
      pinned: options.pinned,
      counter: this.counter,
      summaryRole: options.summaryRole,
      summaryTimeoutMs: options.summaryTimeoutMs,
      recall: options.recall,
      graph,
    });
  }

  /**
   * Same input, same config, same result as `graph.invoke` — typed as the graph's own method, so code that compiles
   * against the graph compiles against the wrapper. Compaction runs after the turn (or before, see `hardLimit`).
   */
  readonly invoke: G["invoke"] = ((input: unknown, config?: unknown) => this.invokeTurn(input, config)) as G["invoke"];

  /**
   * Yields exactly the chunks `graph.stream` yields, as they arrive, for every `streamMode` and `subgraphs` — typed
   * as the graph's own method (its overloads by `streamMode` included). The stream ends when the graph's does;
   * compaction runs after it (unless `background: false`).
   */
  readonly stream: G["stream"] = ((input: unknown, config?: unknown) => this.streamCall(input, config)) as G["stream"];

  /** The graph's `getState`, `getStateHistory` and `updateState`, unchanged. */
  readonly getState: G["getState"] = ((...args: unknown[]) => this.graph.getState(args[0], args[1])) as G["getState"];
  readonly getStateHistory: G["getStateHistory"] = ((...args: unknown[]) => this.graph.getStateHistory(args[0], args[1])) as G["getStateHistory"];
  readonly updateState: G["updateState"] = ((...args: unknown[]) => this.graph.updateState(args[0], args[1], args[2])) as G["updateState"];

  private async invokeTurn(input: unknown, rawConfig: unknown): Promise<unknown> {
    const config = rawConfig as ThreadConfig;
    const threadId = requireThreadId(config, "invoke");
    const record = await this.beforeTurn(threadId, input, config);
    let result: unknown;
    try {
      result = await this.withRecovery(threadId, config, () => this.graph.invoke(input, config));
    } catch (error) {
      await this.turnFailed(record, config);
      throw error;
    }
    await this.afterTurn(record, config, messagesOf(result));
    return result;
  }

  private async streamCall(input: unknown, rawConfig: unknown): Promise<IterableReadableStream<unknown>> {
    const config = rawConfig as ThreadConfig;
    const threadId = requireThreadId(config, "stream");
    return IterableReadableStream.fromAsyncGenerator(this.streamTurn(threadId, input, config, () => undefined));
  }

  /** One streamed turn; `landed` hears of a compaction that landed right after it (for streamTokens). */
  private async *streamTurn(
    threadId: string,
    input: unknown,
    config: ThreadConfig,
    landed: (report: CompactionReport | undefined) => void,
  ): AsyncGenerator<unknown> {
    const record = await this.beforeTurn(threadId, input, config);
    // The turn's final state comes with the stream ("values" added when the caller did not ask for it), so the
    // thread is counted from memory, with the cache answering for everything but what the turn added.
    const shape = streamShape(config.streamMode, (this.graph as { streamMode?: unknown }).streamMode, config.subgraphs === true, config.encoding);
    const graphConfig = shape.injected ? { ...config, streamMode: shape.streamMode } : config;
    let lastValues: BaseMessage[] | undefined;
    let completed = false;
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          const stream = await this.graph.stream(input, graphConfig);
          for await (const chunk of stream) {
            lastValues = shape.valuesOf(chunk) ?? lastValues;
            if (shape.forwards(chunk)) yield shape.unwrap(chunk);
          }
          break;
        } catch (error) {
          if (attempt > 0 || !isContextOverflowError(error) || !(await this.recover(threadId, config))) throw error;
          lastValues = undefined;
        }
      }
      completed = true;
    } finally {
      // A consumer that stops early (break, return, throw) still ends the turn.
      if (!completed) await this.turnFailed(record, config);
    }
    landed(await this.afterTurn(record, config, lastValues));
  }

  /**
   * A convenience stream: `{ type: "token", content, agent }` per model token (sub-agents included), then
   * `{ type: "compaction", report }` when a compaction landed at the end of this turn (after every token was
   * delivered: a summary computed during earlier turns, or with `background: false` the one this turn called
   * for), then `{ type: "done" }`. The summarizer's own tokens never appear.
   */
  async *streamTokens(input: Parameters<G["stream"]>[0], config: Parameters<G["stream"]>[1]): AsyncGenerator<TokenStreamEvent> {
    const threadId = requireThreadId(config, "streamTokens");
    const turnConfig = { ...(config as ThreadConfig), streamMode: "messages", subgraphs: true } as ThreadConfig;
    let report: CompactionReport | undefined;
    for await (const chunk of this.streamTurn(threadId, input, turnConfig, (landed) => void (report = landed))) {
      const event = toTokenEvent(chunk);
      if (event) yield event;
    }
    if (report?.status === "compacted") yield { type: "compaction", report };
    yield { type: "done" };
  }

  /** Resolves once every compaction started so far (on any thread) has finished. */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /**
   * The thread's compaction health: failures in a row and whether compaction is paused (see `circuitBreaker`),
   * turns spent over `tokenLimit` without a landed compaction (see `maxTurnsOverLimit`), and the summary in flight.
   */
  compactionHealth(threadId: string | number): CompactionHealth {
    const record = this.records.peek(String(threadId));
    return {
      ...this.breaker.health(String(threadId)),
      turnsOverLimit: record?.turnsOverLimit ?? 0,
      summary: record?.ready ? "ready" : record?.preparing ? "computing" : "none",
    };
  }

  /** Lift a pause of compaction for the thread now (after fixing the summarizer, say). */
  resumeCompaction(threadId: string | number): void {
    this.breaker.reset(String(threadId));
  }

  // ------------------------------------------------------------------------------------------ turn lifecycle
  //
  // A turn never waits for a summary unless the window is at risk. After a turn, the thread is counted; over the
  // limit, a summary of a snapshot of the head is computed in the background while turns go on; once ready, it is
  // applied at the first moment no turn of this wrapper runs on the thread (right after the turn in flight ends) by
  // a rebasing compare-and-swap that takes milliseconds. Before a turn, the wrapper waits only for that write, or —
  // when the stored thread plus the input exceed `hardLimit`, or the thread has spent `maxTurnsOverLimit` turns
  // over the limit — for the summary in flight, or compacts synchronously when none is.

  /** Counts the input, and compacts first when the window is at risk. Marks the turn in flight. */
  private async beforeTurn(threadId: string, input: unknown, config: ThreadConfig): Promise<ThreadRecord> {
    const record = this.records.get(threadId);
    await record.settling;
    await record.applying;
    await threadLocks.idle(this.checkpointer, threadId);
    let stored = record.count;
    const inputTokens = this.counter.countMessages(inputMessages(input));
    if (stored === undefined || stored + inputTokens > this.options.hardLimit) {
      const state = await this.graph.getState({ configurable: { ...config.configurable } });
      const messages = messagesOf(state?.values) ?? [];
      // A new (or empty) thread holds nothing to compact: its first turn runs as it is.
      stored = messages.length === 0 ? 0 : this.counter.countMessages(messages);
      record.count = stored;
    }
    const atRisk = stored > 0 && stored + inputTokens > this.options.hardLimit;
    const starved = record.turnsOverLimit >= this.options.maxTurnsOverLimit && stored > this.options.tokenLimit;
    if (atRisk || starved) await this.compactBeforeTurn(record, config);
    record.inFlight++;
    return record;
  }

  /**
   * The synchronous path: wait for the summary in flight and apply it (waiting for a gap when another process is
   * mid-turn), or compact now when there is none or it could not land.
   */
  private async compactBeforeTurn(record: ThreadRecord, config: ThreadConfig): Promise<void> {
    const before = record.lastLanded;
    // The summary in flight lands on its own once ready (no turn of this wrapper runs on the thread now).
    await record.preparing;
    await record.applying;
    if (record.ready) await this.apply(record, config, SYNC_BUSY_WAIT_MS);
    if (record.lastLanded === before) {
      record.retryAt = undefined;
      this.startCompaction(record, config, SYNC_BUSY_WAIT_MS);
      await record.preparing;
    }
    record.turnsOverLimit = 0;
  }

  /**
   * After a turn (`messages`: the turn's final state, from the call's result or its stream; read back from the
   * thread when absent). Returns the compaction that landed during it, if one did.
   */
  private async afterTurn(record: ThreadRecord, config: ThreadConfig, messages: BaseMessage[] | undefined): Promise<CompactionReport | undefined> {
    record.inFlight = Math.max(0, record.inFlight - 1);
    const settling = this.settle(record, config, messages);
    record.settling = settling;
    this.track(settling);
    let landed = await settling;
    if (record.settling === settling) record.settling = undefined;
    if (!this.options.background && record.preparing) {
      const before = record.lastLanded;
      await record.preparing;
      if (record.lastLanded !== before) landed = record.lastLanded;
    }
    return landed;
  }

  /** A turn that threw: it is no longer in flight, and a ready summary may land. */
  private async turnFailed(record: ThreadRecord, config: ThreadConfig): Promise<void> {
    record.inFlight = Math.max(0, record.inFlight - 1);
    if (record.ready && record.inFlight === 0) await this.apply(record, config, 0);
  }

  /** Count the thread; apply a ready summary, or start one when over the limit. Never throws. */
  private async settle(record: ThreadRecord, config: ThreadConfig, messages: BaseMessage[] | undefined): Promise<CompactionReport | undefined> {
    const { threadId } = record;
    try {
      let current = messages;
      // The stored head is read only when the turn's own state shows something to archive (or carried no state).
      if (this.archive && (!current || this.archive.hasCandidates(current))) current = (await this.archiveThread(threadId)) ?? current;
      if (!current) {
        const state = await this.graph.getState({ configurable: { ...config.configurable } });
        current = messagesOf(state?.values) ?? [];
      }
      const tokens = this.counter.countMessages(current);
      record.count = tokens;
      const over = tokens > this.options.tokenLimit;
      record.turnsOverLimit = over ? record.turnsOverLimit + 1 : 0;
      if (record.ready) return record.inFlight === 0 ? await this.apply(record, config, 0) : undefined;
      if (over && !record.preparing && (record.retryAt === undefined || tokens >= record.retryAt)) this.startCompaction(record, config, 0);
    } catch (error) {
      await this.reportError(error, threadId);
    }
    return undefined;
  }

  private track(task: Promise<unknown>): void {
    this.pending.add(task);
    void task.finally(() => this.pending.delete(task));
  }

  /**
   * Compute a summary in the background (`record.preparing`); once ready, apply it if no turn runs on the thread,
   * else leave it for the end of the turn in flight. A strategy compacts and writes in one go instead.
   */
  private startCompaction(record: ThreadRecord, config: ThreadConfig, busyWaitMs: number): void {
    const { threadId } = record;
    if (!this.breaker.allows(threadId)) return;
    const tokensAtStart = record.count ?? 0;
    const task = (async () => {
      try {
        if (this.strategy) {
          const report = await compactWithStrategy({
            manager: this.manager,
            checkpointer: this.checkpointer,
            graph: this.graph as unknown as StateReader,
            counter: this.counter,
            strategy: this.strategy,
            threadId,
            budget: Math.floor(this.options.tokenLimit * (1 - this.options.compactionRatio)),
          });
          await this.outcome(record, report, config, tokensAtStart);
          return;
        }
        const result = await this.manager.prepareCompaction({ configurable: { thread_id: threadId } }, { maxTokensAfter: this.options.tokenLimit, preferTokensAfter: this.options.ceiling });
        if (result.status === "prepared") record.ready = result;
        else await this.outcome(record, result, config, tokensAtStart);
      } catch (error) {
        await this.fail(threadId, error);
      }
    })();
    const preparing = task.then(async () => {
      record.preparing = undefined;
      if (record.ready && record.inFlight === 0) await this.apply(record, config, busyWaitMs);
    });
    record.preparing = preparing;
    this.track(preparing);
  }

  /** Apply the ready summary now (a rebasing compare-and-swap). Never throws. */
  private async apply(record: ThreadRecord, config: ThreadConfig, busyWaitMs: number): Promise<CompactionReport | undefined> {
    const prepared = record.ready;
    if (!prepared) return undefined;
    const write = (async () => {
      try {
        const report = await this.manager.applyCompaction(prepared, { busyWaitMs });
        // A busy head (another process mid-turn, an interrupt) keeps the summary for the next gap.
        if (report.status !== "skipped" && record.ready === prepared) record.ready = undefined;
        await this.outcome(record, report, config, record.count ?? 0);
        return report;
      } catch (error) {
        if (record.ready === prepared) record.ready = undefined;
        await this.fail(record.threadId, error);
        return undefined;
      }
    })();
    record.applying = write;
    const report = await write;
    if (record.applying === write) record.applying = undefined;
    return report;
  }

  /** Every outcome reaches `onCompactionOutcome`; a landed one also `onCompaction`, the callbacks and the count. */
  private async outcome(record: ThreadRecord, report: CompactionReport, config: ThreadConfig, tokensAtStart: number): Promise<void> {
    if (report.status === "compacted") {
      this.breaker.success(report.threadId);
      record.count = report.tokensAfter;
      record.turnsOverLimit = 0;
      record.retryAt = undefined;
      record.lastLanded = report;
      await this.emit(report, config);
    } else if (report.status === "skipped" && report.summarizerMs !== undefined) {
      // A summary was written but would not have ended under the ceiling: no new summary before the thread has grown
      // by the margin again, so the summarizer is not called on every turn for nothing. (A skip decided by the plan
      // alone costs no summary and is tried again after the next turn: a newer turn may make more summarizable.)
      record.retryAt = tokensAtStart + Math.max(1, Math.floor(this.options.tokenLimit * COMPACTION_MARGIN));
    }
    try {
      await this.hooks.onCompactionOutcome?.(report);
    } catch (error) {
      await this.reportError(error, report.threadId);
    }
  }

  /**
   * Archive the large tool outputs of the thread's head and force-write the history with pointers (compare-and-swap
   * on the head that was read; a thread that moved or is busy is left for the next turn). The store is written
   * first, so a pointer never names a missing output. Returns the new history, or undefined when nothing changed.
   */
  private async archiveThread(threadId: string): Promise<BaseMessage[] | undefined> {
    const head = await readThreadHead(this.checkpointer, threadId, this.graph as unknown as StateReader);
    if (!head || head.busyReason) return undefined;
    const { messages, archived } = await this.archive!.archive(head.messages, { threadId });
    if (archived.length === 0) return undefined;
    try {
      await this.manager.replaceReadHead(threadId, head, messages, { compaction: { replacedCheckpointId: head.tuple.checkpoint.id, archived } });
      return messages;
    } catch (error) {
      if (CompactionError.isInstance(error) && (error.code === "WRITE_CONFLICT" || error.code === "THREAD_BUSY")) return undefined;
      throw error;
    }
  }

  /** A failed compaction: reported, and counted by the circuit breaker (which may pause the thread's compaction). */
  private async fail(threadId: string, error: unknown): Promise<void> {
    await this.reportError(error, threadId);
    const paused = this.breaker.failure(threadId, error);
    if (paused) await this.reportError(paused, threadId);
  }

  /** Overflow recovery: rewrite the thread from before the failed turn, compacted harder. True when retryable. */
  private async recover(threadId: string, config: ThreadConfig): Promise<boolean> {
    let baseCheckpointId: string | undefined;
    for await (const tuple of this.checkpointer.list({ configurable: { thread_id: threadId, checkpoint_ns: "" } }, { limit: 200 })) {
      if (tuple.metadata?.source === "input") {
        baseCheckpointId = tuple.parentConfig?.configurable?.checkpoint_id as string | undefined;
        break;
      }
    }
    if (!baseCheckpointId || !this.breaker.allows(threadId)) return false;
    try {
      const report = await this.manager.recoverFailedTurn({ configurable: { thread_id: threadId } }, { baseCheckpointId, compactionRatio: this.options.recoveryRatio });
      await this.outcome(this.records.get(threadId), report, config, 0);
      return report.status === "compacted";
    } catch (error) {
      await this.fail(threadId, error);
      return false;
    }
  }

  private async withRecovery<T>(threadId: string, config: ThreadConfig, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (!isContextOverflowError(error) || !(await this.recover(threadId, config))) throw error;
      return run();
    }
  }

  private async emit(report: CompactedReport, config: ThreadConfig): Promise<void> {
    try {
      await this.hooks.onCompaction?.(report);
    } catch (error) {
      await this.reportError(error, report.threadId);
    }
    const callbacks = (config as { callbacks?: unknown }).callbacks;
    if (callbacks) {
      await dispatchCompaction.invoke(report, { callbacks: callbacks as never, runName: "compaction", tags: ["langgraph-compaction"] }).catch(() => undefined);
    }
  }

  private async reportError(error: unknown, threadId?: string): Promise<void> {
    try {
      await this.hooks.onCompactionError?.(error, { threadId });
    } catch {
      // A failing error hook must never break the caller's turn.
    }
  }
}
