/**
 * The in-graph runtime's one step, shared by the createAgent middleware and the node / preModelHook form: given the
 * state's messages before a model call, the messages that replace them (or nothing), computed by the HistoryManager's
 * plan-fit-summarize (`compactWithinPolicy`, the step of every entry point).
 *
 * When the summary is computed is the scheduler's rule (engine/scheduler.ts), as for every runtime:
 * - off the model call where it can be: `after(…)` a model call whose context crossed `tokenLimit` begins the
 *   summary of that snapshot and returns at once (the wrapper's moment: after the turn, on what the model saw);
 *   the next `before(…)` applies it if it is ready and the summarized prefix is still the state's prefix (the rebase
 *   rule, engine/rebase.ts: what was appended since is kept verbatim) and discards it otherwise. A form with no hook
 *   after the call (the node) starts it at the first call over `tokenLimit` instead, and that call goes on;
 * - on the call's path only when it must: a context over `hardLimit`, or the call after `lateness` calls started over
 *   the limit, waits for the summary in flight, or computes one. Waiting is also what lets a summary finish when the
 *   application runs calls back to back and never yields to the event loop.
 *
 * Nothing lost: before the update is returned, the messages it takes out are written to the transcript (the
 * checkpointer's index when SQLite or Postgres, else the graph's BaseStore, else the in-process index:
 * store/transcript-home.ts), idempotently by message id. A run that dies between the two leaves a message in both
 * places, never in none. A summarizer that fails, or a transcript that cannot be written, writes nothing.
 */
import { rebasedCounts } from "../../engine/apply-prepared.js";
import { LandedCounts } from "./landed-counts.js";
import { MemorySaver } from "@langchain/langgraph-checkpoint";
import type { BaseMessage } from "@langchain/core/messages";
import { CompactionError } from "../../errors.js";
import { HistoryManager } from "../../engine/history-manager.js";
import { CircuitBreaker } from "../../engine/circuit-breaker.js";
import type { Notices } from "../../engine/notices.js";
import { LATENESS } from "../../engine/policy.js";
import { resolveSettings } from "../../engine/settings.js";
import { threadStoreFor } from "../../store/thread-store.js";
import { ThreadCompaction, ThreadCompactions, type CompactionRules } from "../../engine/thread-compaction.js";
import { rebaseCompaction } from "../../engine/rebase.js";
import { namespaceOf, threadIdOf, threadKey } from "./run-config.js";
import { announceCompaction } from "./in-graph-event.js";
import { CoveredCopiesHealer } from "./heal.js";
import { turnOver } from "../../slices.js";
import type { MeasuredContext } from "../../engine/calibration.js";
import { InGraphArchive } from "./in-graph-archive.js";
import { recordedForms, recordRemoved } from "./in-graph-transcript.js";
import type { Pending } from "./pending-summaries.js";
import { IN_GRAPH_OPTIONS, type InGraphOptions } from "./in-graph-options.js";
import type { LivePrompt } from "../../summarizers/types.js";

export type { InGraphCompactionEvent, InGraphOptions } from "./in-graph-options.js";

/**
 * Threads whose compaction (calls started over the limit, a summary ready for the next call) is remembered, at most:
 * the least recently used go first, so threads that never call again do not keep their summaries.
 */
const MAX_THREADS = 1_000;

export class InGraphCompactor {
  readonly manager: HistoryManager;
  readonly tokenLimit: number;
  readonly hardLimit: number;
  private readonly ceiling: number;
  /** Each thread's compaction: the summary computed off the model call, kept for the thread's next call. */
  private readonly threads: ThreadCompactions<Pending>;
  private readonly archive: InGraphArchive;
  /** Copies of covered messages dropped, a parent that merges by id told (heal.ts). */
  /** The counts of the head a call's compaction landed, for that call's `after`. */
  private readonly landedCounts: LandedCounts<ThreadCompaction<Pending>>;
  private readonly healer: CoveredCopiesHealer;
  private readonly notices: Notices;

  constructor(private readonly options: InGraphOptions) {
    const settings = resolveSettings("the middleware and the node", IN_GRAPH_OPTIONS, options, {
      requireTrigger: true,
    });
    // The manager plans and summarizes; it never writes through this saver (the graph's state update does).
    this.manager = HistoryManager.of({ ...settings, store: threadStoreFor(new MemorySaver()) });
    const { tokenLimit, hardLimit, ceiling } = settings.policy;
    this.tokenLimit = tokenLimit!;
    this.hardLimit = Math.max(this.tokenLimit, hardLimit ?? this.tokenLimit);
    this.ceiling = ceiling ?? this.tokenLimit;
    this.notices = settings.notices;
    const breaker = new CircuitBreaker(MAX_THREADS);
    // With `background: false`, every call over the limit waits (lateness 0).
    const rules: CompactionRules = {
      tokenLimit: this.tokenLimit,
      triggers: settings.policy.triggers,
      hardLimit: this.hardLimit,
      lateness: options.background === false ? 0 : (options.lateness ?? LATENESS),
    };
    this.threads = new ThreadCompactions(MAX_THREADS, (key) => new ThreadCompaction(key, rules, breaker));
    this.healer = new CoveredCopiesHealer(this.manager.notices, (error) => this.options.onCompactionError?.(error));
    this.archive = new InGraphArchive(options, this.record, this.failed);
    this.landedCounts = new LandedCounts(this.manager.counter);
  }

  /** Resolves once no summary is in flight (e.g. before the process exits, or before measuring the next turn). */
  async idle(): Promise<void> {
    await this.threads.idle();
  }

  /**
   * What the model receives: `messages` and `overhead` (a system prompt, tools), calibrated where replies carry usage
   * figures. `each`: the counter's count of each message, when at hand (a compaction's result): not counted again.
   */
  private measure(
    messages: readonly BaseMessage[],
    overhead: number,
    each?: readonly number[],
  ): Promise<MeasuredContext> {
    return this.manager.calibration.count(messages, overhead, each);
  }

  /**
   * After a model call (the wrapper's moment, after the turn): archive the large tool outputs, when an archive is
   * configured and no summary is in flight, then start the summary of the result when it (with `overhead`) is over
   * the limit. Returns the archived messages as the state update, or undefined. Never throws. `prompt`: what the
   * model read at this call, for a summarizer that starts its request with it.
   */
  async after(
    messages: readonly BaseMessage[],
    overhead: number,
    config: unknown,
    prompt?: LivePrompt,
  ): Promise<BaseMessage[] | undefined> {
    const compaction = this.threads.of(threadKey(config));
    if (compaction.preparing || compaction.ready) return undefined;
    // Counting a long state is a phase of its own, apart from the graph's step before it (slices.ts).
    await turnOver();
    const archived = await this.archive.archived(messages, config);
    const current = archived ?? messages;
    const measured = await this.measure(current, overhead, this.landedCounts.take(compaction, current));
    if (this.options.background !== false && compaction.ended(measured.tokens, current.length) === "start")
      this.begin(compaction, current, overhead, measured, prompt);
    return archived;
  }

  /** The node's check: a subgraph whose messages did not come through CompactionAgentState's reducer, told once per thread. */
  checkSubgraph(messages: readonly BaseMessage[], config: unknown): void {
    this.healer.checkSubgraph(messages, namespaceOf(config), threadKey(config));
  }

  /**
   * Before a model call: the messages that replace `messages`, or undefined to leave the state as it is. `start`:
   * for a form with no hook after the call (the node), archive here and start a summary at a call over the limit.
   * Never throws: a failure is told to `onCompactionError` and the call goes on.
   */
  async before(
    given: readonly BaseMessage[],
    overhead: number,
    config: unknown,
    { start }: { start: boolean },
  ): Promise<BaseMessage[] | undefined> {
    const key = threadKey(config);
    await turnOver();
    const healed = await this.healer.healed(given, key, (ids) =>
      recordedForms(this.manager.recallLanguage, threadIdOf(config), ids, config),
    );
    const messages = healed ?? given;
    const compaction = this.threads.of(key);
    const idle = !compaction.preparing && !compaction.ready;
    const archived = start && idle ? await this.archive.archived(messages, config) : undefined;
    const current = archived ?? messages;
    return (await this.summarized(current, overhead, config, start)) ?? archived ?? healed;
  }

  /** The summary step of `before`: `messages` with a summary applied, or undefined. */
  private async summarized(
    messages: readonly BaseMessage[],
    overhead: number,
    config: unknown,
    start: boolean,
  ): Promise<BaseMessage[] | undefined> {
    const compaction = this.threads.of(threadKey(config));
    const measured = await this.measure(messages, overhead);
    const tokensBefore = measured.tokens;
    const decision = compaction.starting(tokensBefore, messages.length, start);
    if (decision === "go") return undefined;
    if (decision === "start") {
      this.begin(compaction, messages, overhead, measured);
      return undefined;
    }
    // "apply" a ready summary, or "wait": past the hard limit or the bound on lateness, for the summary in flight
    // (awaiting it is what lets it finish when calls run back to back), else for a new one.
    if (decision === "wait" || decision === "rescue") compaction.waited();
    if (!compaction.preparing && !compaction.ready) this.begin(compaction, messages, overhead, measured);
    await compaction.preparing;
    const job = compaction.take();
    if (!job) return undefined;
    const outcome = await job.result;
    if ("error" in outcome) return this.failure(compaction, outcome.error);
    if ("skipped" in outcome) {
      if (outcome.summarizerMs !== undefined) compaction.backOff(job.tokens);
      return undefined;
    }
    const rebased = rebaseCompaction(
      outcome,
      job.snapshot.slice(0, outcome.plan.prefixLength),
      messages,
      job.snapshot.length,
    );
    if (!rebased.ok) {
      this.failed(
        new CompactionError({
          code: "WRITE_CONFLICT",
          value: compaction.key,
          message: `the summary was not applied: ${rebased.reason}`,
        }),
      );
      // Over the hard limit the call still needs a smaller context: summarize what the state holds now.
      return compaction.atRisk(tokensBefore) ? this.summarized(messages, overhead, config, start) : undefined;
    }
    compaction.landed();
    const threadId = threadIdOf(config);
    await turnOver();
    try {
      await this.record(threadId, messages, rebased.messages, config);
    } catch (error) {
      return this.failure(compaction, error);
    }
    // The compaction's result is counted already (`outcome.counts`); a rebased one is counted here, once: the call's
    // `after` takes this count for the messages it starts with.
    const measuredAfter = await this.measure(
      rebased.messages,
      overhead,
      rebasedCounts(this.manager, outcome, rebased.messages),
    );
    this.landedCounts.landed(compaction, rebased.messages, measuredAfter.each);
    // A parent that merges messages by id keeps what this compaction removes: the model's input shrinks, the head does
    // not, so it is not reported as a compaction (the healer said why, at this call).
    if (!this.healer.parentMerges(compaction.key))
      announceCompaction(this.options, config, this.manager.counter, {
        threadId,
        before: messages,
        after: rebased.messages,
        measuredBefore: measured,
        measuredAfter,
        appended: rebased.appended,
        background: job.snapshot !== messages,
        compacted: outcome,
      });
    return rebased.messages;
  }

  /** The summary of `snapshot`, started now; kept, once computed, for the thread's next model call. */
  private begin(
    compaction: ThreadCompaction<Pending>,
    snapshot: readonly BaseMessage[],
    overhead: number,
    { tokens, ratio, each }: MeasuredContext,
    prompt?: LivePrompt,
  ): void {
    // The limits are the provider's tokens; the plan counts the tokenizer's (engine/calibration.ts).
    const within = (limit: number) => Math.max(1, Math.floor(limit / ratio) - overhead);
    const { key } = compaction;
    const result = this.manager
      .compactWithinPolicy(
        snapshot,
        {
          maxTokensAfter: within(this.tokenLimit),
          preferTokensAfter: within(this.ceiling),
          tokenRatio: ratio,
          threadId: key,
          ...(prompt ? { prompt } : {}),
        },
        undefined,
        each,
      )
      .catch((error: unknown) => ({ error }));
    void compaction.prepare(result.then(() => ({ snapshot, tokens, result })));
  }

  /** The messages `after` takes out of `before`, written to the thread's transcript (in-graph-transcript.ts). */
  private readonly record = (
    threadId: string | undefined,
    before: readonly BaseMessage[],
    after: readonly BaseMessage[],
    config: unknown,
  ): Promise<void> => recordRemoved(this.manager.recallLanguage, threadId, before, after, config);

  /**
   * A compaction that failed (its summarizer, its transcript): told, and counted by the circuit breaker, which pauses
   * the thread's compaction after `failureThreshold` in a row (announced once, COMPACTION_PAUSED): its calls then go
   * on uncompacted instead of waiting for a summary that keeps failing.
   */
  private failure(compaction: ThreadCompaction<Pending>, error: unknown): undefined {
    this.failed(error);
    const paused = compaction.failed(error);
    if (paused) this.failed(paused);
    return undefined;
  }

  private readonly failed = (error: unknown): undefined => {
    if (this.options.onCompactionError) this.options.onCompactionError(error);
    else
      this.notices.once({
        code: "COMPACTION_FAILING",
        error,
        message: `a compaction in the graph failed and nothing was written: ${error instanceof Error ? error.message : String(error)}. Pass onCompactionError to hear every failure.`,
      });
    return undefined;
  };
}
