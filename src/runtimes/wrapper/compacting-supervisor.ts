/**
 * CompactingSupervisor: wraps any compiled LangGraph graph's invoke and stream without changing the graph. After
 * each turn it counts the thread's tokens; over the limit, it compacts the thread through a HistoryManager.
 */

import type { BaseMessage } from "@langchain/core/messages";
import { IterableReadableStream } from "@langchain/core/utils/stream";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { CompactionError, describeValue, requireThreadId } from "../../errors.js";
import { HistoryManager } from "../../engine/history-manager.js";
import { CircuitBreaker } from "../../engine/circuit-breaker.js";
import { LATENESS } from "../../engine/policy.js";
import { resolveSettings } from "../../engine/settings.js";
import { argument } from "../../options/check.js";
import { never } from "../../options/rules.js";
import { threadStoreFor } from "../../store/thread-store.js";
import type { CompactionHealth } from "./compaction-health.js";
import { CompactionEvents } from "./compaction-events.js";
import { WRAPPER_OPTIONS, type CompactingSupervisorOptions } from "./options.js";
import type { CompactionPolicy } from "../../engine/policy.js";
import type { Summarizer } from "../../summarizers/types.js";
import type { SummarizerChoice } from "../../summarizers/default.js";
import { isContextOverflowError } from "./overflow.js";
import { messagesOf, streamShape } from "./stream-shape.js";
import { ThreadCompactor, type StateReader, type ThreadConfig } from "./thread-compactor.js";
import { MAX_THREADS, takeUnstreamed, ThreadRecords } from "./thread-records.js";
import { toTokenEvent, type TokenStreamEvent } from "./token-events.js";

export { COMPACTION_EVENT } from "./compaction-events.js";

export type { CompactionHealth } from "./compaction-health.js";

/**
 * What the wrapper needs from a compiled graph (a `CompiledStateGraph`, `createReactAgent`, `createSupervisor`). Its
 * parameters are `any` on purpose: each graph's own, narrower signatures (and overloads) must satisfy this shape.
 */
export interface CompactableGraph {
  invoke(input: any, config?: any): Promise<any>;
  stream(input: any, config?: any): Promise<AsyncIterable<any>>;
  getState(config: any, options?: any): Promise<any>;
  getStateHistory(config: any, options?: any): AsyncIterableIterator<any>;
  updateState(config: any, values: any, asNode?: any): Promise<any>;
  checkpointer?: BaseCheckpointSaver | boolean;
  channels?: Record<string, unknown>;
}

export class CompactingSupervisor<G extends CompactableGraph = CompactableGraph> {
  readonly graph: G;
  /** The resolved compaction policy (limits in tokens, the cut, the summary's budget), as the script would resolve it. */
  readonly policy: CompactionPolicy;
  /** The summarizer compactions use: the one given, or the default chosen once at construction. */
  readonly summarizer: Summarizer;
  /** How `summarizer` was chosen (also in `compactionHealth`). */
  readonly summarizerChoice: SummarizerChoice;
  private readonly records: ThreadRecords;
  private readonly breaker: CircuitBreaker;
  private readonly compactor: ThreadCompactor;

  /**
   * @throws CompactionError MISSING_CHECKPOINTER when the graph was compiled without a checkpointer;
   *   INVALID_ARGUMENT naming the bad option and its value.
   */
  constructor(graph: G, options: CompactingSupervisorOptions) {
    if (
      typeof graph !== "object" ||
      graph === null ||
      typeof graph.invoke !== "function" ||
      typeof graph.stream !== "function"
    ) {
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
        message: `the graph has no "messages" channel (its channels: ${Object.keys(graph.channels)
          .filter((name) => !name.startsWith("branch:") && !name.startsWith("__"))
          .join(", ")}); compaction needs a messages state such as MessagesAnnotation`,
      });
    }
    this.graph = graph;
    const settings = resolveSettings("CompactingSupervisor", WRAPPER_OPTIONS, options, { requireTrigger: true });
    // Outside a graph there is no graph's store to fall back on.
    if (options.archive && !options.archive.store)
      argument("archive.store", undefined, never("a LangGraph BaseStore given to the ToolOutputArchive"));
    this.policy = settings.policy;
    this.summarizer = settings.summarizer;
    this.summarizerChoice = settings.summarizerChoice;
    this.breaker = new CircuitBreaker(MAX_THREADS);
    this.records = new ThreadRecords(
      MAX_THREADS,
      { ...settings.policy, tokenLimit: settings.policy.tokenLimit!, lateness: options.lateness ?? LATENESS },
      this.breaker,
    );
    const events = new CompactionEvents(options, settings.notices);
    // The engine, given the settings already resolved: nothing is validated or defaulted twice. The wrapper prunes
    // after its turns and compactions itself (prune-after.ts).
    const manager = HistoryManager.of({
      ...settings,
      keepCheckpoints: undefined,
      store: threadStoreFor(checkpointer as BaseCheckpointSaver, { recallLanguage: settings.recall.language }),
    });
    this.compactor = new ThreadCompactor({
      graph: graph as unknown as StateReader,
      options: { background: options.background ?? true, keepCheckpoints: settings.keepCheckpoints },
      manager,
      records: this.records,
      events,
      strategy: options.strategy,
      archive: options.archive,
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
  readonly getStateHistory: G["getStateHistory"] = ((...args: unknown[]) =>
    this.graph.getStateHistory(args[0], args[1])) as G["getStateHistory"];
  readonly updateState: G["updateState"] = ((...args: unknown[]) =>
    this.graph.updateState(args[0], args[1], args[2])) as G["updateState"];

  private async invokeTurn(input: unknown, rawConfig: unknown): Promise<unknown> {
    const config = rawConfig as ThreadConfig;
    const threadId = requireThreadId(config, "invoke");
    const record = await this.compactor.beforeTurn(threadId, input, config);
    let result: unknown;
    try {
      result = await this.withRecovery(threadId, config, () => this.graph.invoke(input, config));
    } catch (error) {
      await this.compactor.turnFailed(record, config);
      throw error;
    }
    await this.compactor.afterTurn(record, config, messagesOf(result));
    return result;
  }

  private async streamCall(input: unknown, rawConfig: unknown): Promise<IterableReadableStream<unknown>> {
    const config = rawConfig as ThreadConfig;
    const threadId = requireThreadId(config, "stream");
    return IterableReadableStream.fromAsyncGenerator(this.streamTurn(threadId, input, config));
  }

  /** One streamed turn. */
  private async *streamTurn(threadId: string, input: unknown, config: ThreadConfig): AsyncGenerator<unknown> {
    const record = await this.compactor.beforeTurn(threadId, input, config);
    // The turn's final state comes with the stream ("values" added when the caller did not ask for it), so the
    // thread is counted from memory, with the cache answering for everything but what the turn added.
    const shape = streamShape(
      config.streamMode,
      (this.graph as { streamMode?: unknown }).streamMode,
      config.subgraphs === true,
      config.encoding,
    );
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
          if (attempt > 0 || !isContextOverflowError(error) || !(await this.compactor.recover(threadId, config)))
            throw error;
          lastValues = undefined;
        }
      }
      completed = true;
    } finally {
      // A consumer that stops early (break, return, throw) still ends the turn.
      if (!completed) await this.compactor.turnFailed(record, config);
    }
    await this.compactor.afterTurn(record, config, lastValues);
  }

  /**
   * A convenience stream: first `{ type: "compaction", report }` for each compaction of the thread that landed since
   * the last `streamTokens` stream (with the default `background: true` a summary usually lands between turns, outside
   * any stream); then `{ type: "token", content, agent }` per model token (sub-agents included); then a
   * `{ type: "compaction", report }` for each compaction that landed during the turn or at its end (after every token
   * was delivered); then `{ type: "done" }`. Over consecutive streams of a thread, every compaction that landed is
   * reported once (one landing after the last stream is reported by the next; `onCompaction` hears each as it
   * lands). The summarizer's own tokens never appear.
   */
  async *streamTokens(
    input: Parameters<G["stream"]>[0],
    config: Parameters<G["stream"]>[1],
  ): AsyncGenerator<TokenStreamEvent> {
    const threadId = requireThreadId(config, "streamTokens");
    const turnConfig = { ...(config as ThreadConfig), streamMode: "messages", subgraphs: true } as ThreadConfig;
    for (const report of takeUnstreamed(this.records.peek(threadId))) yield { type: "compaction", report };
    for await (const chunk of this.streamTurn(threadId, input, turnConfig)) {
      const event = toTokenEvent(chunk);
      if (event) yield event;
    }
    for (const report of takeUnstreamed(this.records.peek(threadId))) yield { type: "compaction", report };
    yield { type: "done" };
  }

  /**
   * Resolves once the compactions in flight when it was called (on any thread) have finished, with the write and the
   * prune each goes on to — not those of turns started since: it resolves while turns go on.
   */
  async flush(): Promise<void> {
    await this.compactor.work.flush();
  }

  /**
   * For a server shutting down: starts no new compaction (turns still run, forwarded as they are; one whose window
   * is at risk still compacts first), and resolves once the compactions in flight have finished (each bounded by
   * `summaryTimeoutMs`), whatever turns still run. The wrapper holds nothing else (no timer, no worker), so the
   * process may exit once it resolves.
   */
  async close(): Promise<void> {
    await this.compactor.work.close();
  }

  /**
   * The thread's compaction health: failures in a row and whether compaction is paused (see `circuitBreaker`),
   * turns started over `tokenLimit` without a landed compaction (the next turn past `lateness` waits for the
   * summary), and the summary in flight.
   */
  compactionHealth(threadId: string | number): CompactionHealth {
    const record = this.records.peek(String(threadId));
    return {
      ...this.breaker.health(String(threadId)),
      turnsOverLimit: record?.compaction.schedule.overLimit ?? 0,
      summary: record?.compaction.ready ? "ready" : record?.compaction.preparing ? "computing" : "none",
      summarizer: this.summarizerChoice,
      ...(record?.count === undefined ? {} : { tokens: record.count }),
      ...(record?.usage ? { providerUsage: record.usage } : {}),
      rewrittenTokens: record?.rewritten ?? 0,
      keptLess: record?.keptLess ?? 0,
      summarizerTokens: { ...(record?.summarizerTokens ?? { input: 0, output: 0, cachedInput: 0, calls: 0 }) },
    };
  }

  /** Lift a pause of compaction for the thread now (after fixing the summarizer, say). */
  resumeCompaction(threadId: string | number): void {
    this.breaker.reset(String(threadId));
  }

  private async withRecovery<T>(threadId: string, config: ThreadConfig, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (!isContextOverflowError(error) || !(await this.compactor.recover(threadId, config))) throw error;
      return run();
    }
  }
}
