/**
 * CompactingSupervisor: wraps any compiled LangGraph graph's invoke and stream without changing the graph. After
 * each turn it counts the thread's tokens; over the limit, it compacts the thread through a HistoryManager.
 */

import { BaseMessage, BaseMessageChunk } from "@langchain/core/messages";
import { dispatchCustomEvent } from "@langchain/core/callbacks/dispatch";
import { RunnableLambda } from "@langchain/core/runnables";
import { IterableReadableStream } from "@langchain/core/utils/stream";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { CompactionError, describeValue, requireThreadId } from "../errors.js";
import { HistoryManager } from "../history/history-manager.js";
import type { CompactionReport } from "../history/report.js";
import { threadLocks } from "../history/thread-lock.js";
import { TokenCounter } from "../tokens/token-counter.js";
import { CircuitBreaker, type CompactionHealth } from "./circuit-breaker.js";
import { ToolOutputArchive } from "../archive/archive.js";
import { resolveStrategy } from "../strategies/registry.js";
import type { Strategy } from "../strategies/types.js";
import { compactWithStrategy } from "./strategy-compaction.js";
import { readThreadHead, type StateReader } from "../history/thread-state.js";
import { resolveOptions, type CompactingSupervisorOptions, type ResolvedOptions } from "./options.js";
import { isContextOverflowError } from "./overflow.js";
import { toTokenEvent, type TokenStreamEvent } from "./token-events.js";

/** At most this many streamed turns in a row are counted by estimate before an exact count. */
const ESTIMATED_TURNS = 5;

/** The custom event name under which compactions reach LangChain callbacks (tracing tools show it). */
export const COMPACTION_EVENT = "langgraph_compaction";

/** A traced run named "compaction" that carries the report as a custom event. */
const dispatchCompaction = RunnableLambda.from(async (report: CompactionReport, config) => {
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

function messagesOf(value: unknown): BaseMessage[] | undefined {
  const messages = (value as { messages?: unknown } | undefined)?.messages;
  return Array.isArray(messages) && messages.every((message) => BaseMessage.isInstance(message)) ? (messages as BaseMessage[]) : undefined;
}

export class CompactingSupervisor<G extends CompactableGraph = CompactableGraph> {
  readonly graph: G;
  readonly manager: HistoryManager;
  readonly counter: TokenCounter;
  readonly options: ResolvedOptions;
  private readonly checkpointer: BaseCheckpointSaver;
  private readonly hooks: Pick<CompactingSupervisorOptions, "onCompaction" | "onCompactionError">;
  private readonly pending = new Map<string, Promise<void>>();
  /** Token count of each thread after its last turn through this wrapper (for the proactive check). */
  private readonly lastCount = new Map<string, number>();
  /** Consecutive turns whose count was estimated from the stream rather than counted exactly. */
  private readonly estimatedTurns = new Map<string, number>();
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
    this.counter = new TokenCounter({ model: this.options.modelName });
    this.hooks = { onCompaction: options.onCompaction, onCompactionError: options.onCompactionError };
    this.breaker = new CircuitBreaker(this.options.failureThreshold, this.options.pauseMs);
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

  /** Same input, same config, same result as `graph.invoke`; compaction runs after (or before, see `hardLimit`). */
  async invoke(...args: Parameters<G["invoke"]>): Promise<Awaited<ReturnType<G["invoke"]>>> {
    const [input, config] = args as unknown as [unknown, ThreadConfig];
    const threadId = requireThreadId(config, "invoke");
    await this.beforeTurn(threadId, input, config);
    const result = await this.withRecovery(threadId, config, () => this.graph.invoke(input, config));
    await this.afterTurn(threadId, config, messagesOf(result));
    return result as Awaited<ReturnType<G["invoke"]>>;
  }

  /**
   * Yields exactly the chunks `graph.stream` yields, as they arrive, for every `streamMode` and `subgraphs`.
   * The stream ends when the graph's does; compaction runs after it (unless `background: false`).
   */
  async stream(...args: Parameters<G["stream"]>): Promise<Awaited<ReturnType<G["stream"]>>> {
    const [input, config] = args as unknown as [unknown, ThreadConfig];
    const threadId = requireThreadId(config, "stream");
    const generator = this.streamTurn(threadId, input, config, true);
    return IterableReadableStream.fromAsyncGenerator(generator) as unknown as Awaited<ReturnType<G["stream"]>>;
  }

  private async *streamTurn(threadId: string, input: unknown, config: ThreadConfig, compactAfter: boolean): AsyncGenerator<unknown> {
    await this.beforeTurn(threadId, input, config);
    const defaultModes = (this.graph as { streamMode?: unknown }).streamMode;
    const modes: unknown[] =
      config.streamMode === undefined ? (Array.isArray(defaultModes) ? defaultModes : ["values"]) : Array.isArray(config.streamMode) ? config.streamMode : [config.streamMode];
    const single = !Array.isArray(config.streamMode);
    const subgraphs = config.subgraphs === true;
    let lastValues: BaseMessage[] | undefined;
    let streamed = 0;
    for (let attempt = 0; ; attempt++) {
      try {
        const stream = await this.graph.stream(input, config);
        for await (const chunk of stream) {
          lastValues = this.valuesOf(chunk, modes, single, subgraphs) ?? lastValues;
          if (!lastValues) streamed += this.streamedTokens(chunk, 0);
          yield chunk;
        }
        break;
      } catch (error) {
        if (attempt > 0 || !isContextOverflowError(error) || !(await this.recover(threadId, config))) throw error;
        streamed = 0;
      }
    }
    const before = this.lastCount.get(threadId);
    const estimate =
      lastValues === undefined && streamed > 0 && before !== undefined
        ? before + this.counter.countMessages(messagesOf(input) ?? []) + streamed
        : undefined;
    if (compactAfter) await this.afterTurn(threadId, config, lastValues, estimate);
  }

  /**
   * Tokens of the messages (or message chunks) in a streamed chunk — an estimate of what the turn added, used when
   * the stream carries no full state, so the thread need not be read back after every streamed turn.
   */
  private streamedTokens(value: unknown, depth: number): number {
    if (depth > 5 || value === null || typeof value !== "object") return 0;
    if (BaseMessage.isInstance(value)) {
      const chunkArgs = (value as BaseMessage & { tool_call_chunks?: Array<{ args?: string; name?: string }> }).tool_call_chunks ?? [];
      const calls = chunkArgs.reduce((sum, call) => sum + this.counter.countText(`${call.name ?? ""}${call.args ?? ""}`), 0);
      const own = BaseMessageChunk.isInstance(value) ? this.counter.countText(value.text) + 1 : this.counter.countMessage(value);
      return own + calls;
    }
    let total = 0;
    for (const item of Array.isArray(value) ? value : Object.values(value)) total += this.streamedTokens(item, depth + 1);
    return total;
  }

  private valuesOf(chunk: unknown, modes: unknown[], single: boolean, subgraphs: boolean): BaseMessage[] | undefined {
    if (!modes.includes("values")) return undefined;
    let payload = chunk;
    if (subgraphs) {
      if (!Array.isArray(payload) || payload.length < 2 || (payload[0] as unknown[]).length > 0) return undefined;
      payload = single ? payload[1] : payload.slice(1);
    }
    if (!single) {
      if (!Array.isArray(payload) || payload[0] !== "values") return undefined;
      payload = payload[1];
    }
    return messagesOf(payload);
  }

  /**
   * The seed's convenience stream: `{ type: "token", content, agent }` per model token (sub-agents included), then
   * `{ type: "compaction", report }` if the turn pushed the thread over the limit (after every token was delivered),
   * then `{ type: "done" }`. The summarizer's own tokens never appear.
   */
  async *streamTokens(input: Parameters<G["stream"]>[0], config: Parameters<G["stream"]>[1]): AsyncGenerator<TokenStreamEvent> {
    const threadId = requireThreadId(config, "streamTokens");
    const turnConfig = { ...(config as ThreadConfig), streamMode: "messages", subgraphs: true } as ThreadConfig;
    for await (const chunk of this.streamTurn(threadId, input, turnConfig, false)) {
      const event = toTokenEvent(chunk);
      if (event) yield event;
    }
    const report = await this.countAndMaybeCompact(threadId, config as ThreadConfig, undefined);
    if (report?.status === "compacted") yield { type: "compaction", report };
    yield { type: "done" };
  }

  /** Resolves once every compaction started so far (on any thread) has finished. */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending.values()]);
  }

  /** Failures in a row and whether compaction is paused for the thread (see the `circuitBreaker` option). */
  compactionHealth(threadId: string | number): CompactionHealth {
    return this.breaker.health(String(threadId));
  }

  /** Lift a pause of compaction for the thread now (after fixing the summarizer, say). */
  resumeCompaction(threadId: string | number): void {
    this.breaker.reset(String(threadId));
  }

  getState(...args: Parameters<G["getState"]>): ReturnType<G["getState"]> {
    return this.graph.getState(...(args as unknown as [unknown, unknown])) as ReturnType<G["getState"]>;
  }

  getStateHistory(...args: Parameters<G["getStateHistory"]>): ReturnType<G["getStateHistory"]> {
    return this.graph.getStateHistory(...(args as unknown as [unknown, unknown])) as ReturnType<G["getStateHistory"]>;
  }

  updateState(...args: Parameters<G["updateState"]>): ReturnType<G["updateState"]> {
    return this.graph.updateState(...(args as unknown as [unknown, unknown, unknown])) as ReturnType<G["updateState"]>;
  }

  // ------------------------------------------------------------------------------------------ turn lifecycle

  private async beforeTurn(threadId: string, input: unknown, config: ThreadConfig): Promise<void> {
    // The next call on a thread waits for the compaction in flight on it.
    await this.pending.get(threadId);
    await threadLocks.idle(this.checkpointer, threadId);
    let stored = this.lastCount.get(threadId);
    const inputTokens = this.counter.countMessages(messagesOf(input) ?? []);
    if (stored === undefined || stored + inputTokens > this.options.hardLimit) {
      const state = await this.graph.getState({ configurable: { ...config.configurable } });
      stored = this.counter.countMessages(messagesOf(state?.values) ?? []);
      this.lastCount.set(threadId, stored);
    }
    if (stored + inputTokens > this.options.hardLimit) {
      await this.compactNow(threadId, config);
    }
  }

  private async afterTurn(threadId: string, config: ThreadConfig, messages: BaseMessage[] | undefined, estimate?: number): Promise<void> {
    if (estimate !== undefined && this.acceptEstimate(threadId, estimate)) return;
    if (this.options.background) {
      const task = this.countAndMaybeCompact(threadId, config, messages).then(() => undefined);
      this.track(threadId, task);
    } else {
      await this.countAndMaybeCompact(threadId, config, messages);
    }
  }

  /**
   * Trust a streamed estimate only well below the limit (80%) and for at most ESTIMATED_TURNS turns in a row, so
   * estimation error can never accumulate into a missed compaction; otherwise the thread is counted exactly.
   */
  private acceptEstimate(threadId: string, estimate: number): boolean {
    const streak = this.estimatedTurns.get(threadId) ?? 0;
    if (estimate > this.options.tokenLimit * 0.8 || streak >= ESTIMATED_TURNS) {
      this.estimatedTurns.set(threadId, 0);
      return false;
    }
    this.estimatedTurns.set(threadId, streak + 1);
    this.lastCount.set(threadId, estimate);
    return true;
  }

  private track(threadId: string, task: Promise<void>): void {
    const previous = this.pending.get(threadId);
    const chained = (previous ? previous.then(() => task) : task).finally(() => {
      if (this.pending.get(threadId) === chained) this.pending.delete(threadId);
    });
    this.pending.set(threadId, chained);
  }

  /** Count the thread (from the turn's own state when available) and compact it when over the limit. */
  private async countAndMaybeCompact(
    threadId: string,
    config: ThreadConfig,
    messages: BaseMessage[] | undefined,
  ): Promise<CompactionReport | undefined> {
    try {
      let current = messages;
      // The stored head is read only when the turn's own state shows something to archive (or carried no state).
      if (this.archive && (!current || this.archive.hasCandidates(current))) current = (await this.archiveThread(threadId)) ?? current;
      if (!current) {
        const state = await this.graph.getState({ configurable: { ...config.configurable } });
        current = messagesOf(state?.values) ?? [];
      }
      const tokens = this.counter.countMessages(current);
      this.lastCount.set(threadId, tokens);
      this.estimatedTurns.set(threadId, 0);
      if (tokens <= this.options.tokenLimit) return undefined;
      return await this.compactNow(threadId, config);
    } catch (error) {
      await this.reportError(error, threadId);
      return undefined;
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

  private async compactNow(threadId: string, config: ThreadConfig): Promise<CompactionReport | undefined> {
    if (!this.breaker.allows(threadId)) return undefined;
    try {
      const report = this.strategy
        ? await compactWithStrategy({
            manager: this.manager,
            checkpointer: this.checkpointer,
            graph: this.graph as unknown as StateReader,
            counter: this.counter,
            strategy: this.strategy,
            threadId,
            budget: Math.floor(this.options.tokenLimit * (1 - this.options.compactionRatio)),
          })
        : await this.manager.compactThread({ configurable: { thread_id: threadId } });
      if (report.status === "compacted") await this.succeeded(report, config);
      return report;
    } catch (error) {
      await this.fail(threadId, error);
      return undefined;
    }
  }

  /** A compaction that wrote a checkpoint: the breaker closes, the count is the new one, the hooks hear of it. */
  private async succeeded(report: CompactionReport, config: ThreadConfig): Promise<void> {
    this.breaker.success(report.threadId);
    this.lastCount.set(report.threadId, report.tokensAfter ?? 0);
    await this.emit(report, config);
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
      if (report.status !== "compacted") return false;
      await this.succeeded(report, config);
      return true;
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

  private async emit(report: CompactionReport, config: ThreadConfig): Promise<void> {
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
