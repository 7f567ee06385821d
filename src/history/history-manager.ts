/**
 * HistoryManager: read a thread, plan the cut, summarize, and force-write a replacement checkpoint that loses
 * nothing (the recipe and its failure modes are in DESIGN.md; the compare-and-swap per backend in
 * checkpoint/compare-and-swap.ts).
 */

import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import { copyCheckpoint, type BaseCheckpointSaver, type CheckpointMetadata, type CheckpointTuple } from "@langchain/langgraph-checkpoint";
import { idAfter } from "../checkpoint/ids.js";
import { createWriter, maxVersion, type CompareAndSwapWriter, type ReplacementBuilder } from "../checkpoint/compare-and-swap.js";
import { asStoreError, CompactionError, invalidArgument, requireThreadId, threadNotFound } from "../errors.js";
import { createDefaultSummarizer } from "../summarizers/default.js";
import { ExtractiveSummarizer } from "../summarizers/extractive.js";
import { LlmSummarizer } from "../summarizers/llm.js";
import { validateSummaryText } from "../summarizers/output.js";
import type { Summarizer } from "../summarizers/types.js";
import { TokenCounter } from "../tokens/token-counter.js";
import { validatePredicate, type PinPredicate } from "../messages/pins.js";
import { DEFAULT_COMPACTION_RATIO, planCompaction, type CompactionPlan } from "./plan.js";
import { validateRatio } from "../validate-ratio.js";
import { rebaseCompaction } from "./rebase.js";
import type { CompactionReport } from "./report.js";
import {
  createSummaryMessage,
  DEFAULT_SUMMARY_ROLE,
  getSummaryProvenance,
  SEARCHABLE_SUMMARY_HEADER,
  SUMMARY_HEADER,
  summaryText,
  type SummaryRole,
} from "../messages/summary-message.js";
import { summaryLocks, threadLocks } from "./thread-lock.js";
import { readThreadHead, type StateReader, type ThreadHead } from "./thread-state.js";
import { validateHistory } from "../messages/validate.js";
import { recallChanges } from "../checkpoint/recall-index/entries.js";
import { DEFAULT_POSTGRES_LANGUAGE, validateLanguage } from "../checkpoint/recall-index/postgres-index.js";

export const DEFAULT_MAX_WRITE_ATTEMPTS = 3;
export const DEFAULT_SUMMARY_TIMEOUT_MS = 120_000;
/** How long `compactThread` waits for a gap between turns on a thread busy with a run, by default. */
export const DEFAULT_BUSY_WAIT_MS = 5_000;
/** First and longest pause between two looks at a busy head. */
const BUSY_RETRY_MS = 10;
const MAX_BUSY_RETRY_MS = 250;
/** Tokens OpenAI adds around each message (role, separators): see tokens/chat-format.ts. */
const MESSAGE_FRAMING_TOKENS = 4;

export interface HistoryManagerOptions {
  /** The store holding the threads. */
  checkpointer: BaseCheckpointSaver;
  /** Default: LlmSummarizer over `model` when given, else ChatOpenAI when OPENAI_API_KEY is set, else extractive. */
  summarizer?: Summarizer;
  /**
   * Used when `summarizer` fails (throws, times out, or returns an empty, oversized or error-like text): `"extractive"`
   * or any Summarizer. The summary's provenance and the report name the summarizer that wrote it and why the first
   * one was passed over. @default none (a failure writes nothing)
   */
  fallbackSummarizer?: Summarizer | "extractive";
  /** A chat model for an LlmSummarizer (ignored when `summarizer` is given). */
  model?: BaseChatModel;
  /** Share of the oldest non-system messages to summarize. @default 0.5 */
  compactionRatio?: number;
  /** Keep the newest messages within this many tokens instead of using the ratio. */
  keepTokens?: number;
  /**
   * Compact down to about this many tokens instead of using the ratio: the system messages, the summary's budget and
   * the newest messages that fit in the rest (see planCompaction). `keepTokens` wins when both are set.
   */
  targetTokens?: number;
  /** Messages never summarized, besides those marked with `pinMessage`. */
  pinned?: PinPredicate;
  /**
   * Budget of each summary in tokens (never more than half of what it summarizes).
   * @default 20% of the summarized tokens, between 256 and 2,000
   */
  summaryTokens?: number;
  /** Model name for the tokenizer. @default "gpt-4o" */
  tokenModel?: string;
  /** A shared counter (its cache makes repeated counts cheap). */
  counter?: TokenCounter;
  /** Role of the summary message. @default "human" */
  summaryRole?: SummaryRole;
  /** A summary that takes longer is abandoned and nothing is written. @default 120000 */
  summaryTimeoutMs?: number;
  /** Compare-and-swap attempts before reporting a conflict (and summaries, when the summarized prefix changed). @default 3 */
  maxWriteAttempts?: number;
  /** How long `compactThread` waits for a gap between turns when the head is busy with a run. @default 5000 */
  busyWaitMs?: number;
  /** The compiled graph, when at hand: needed only to read a `messages` channel stored as deltas (DeltaChannel). */
  graph?: StateReader;
  /**
   * The recall index: every message a write takes out of the head is indexed in the same transaction, so
   * `searchHistory` and the `search_history` tool find it. `false` turns it off. @default true
   */
  recall?: boolean | RecallOptions;
}

export interface RecallOptions {
  /** Postgres text search configuration ("simple" cuts any language into words; "english" stems). @default "simple" */
  language?: string;
  /**
   * The summary's header tells the model that older messages can be searched with the `search_history` tool. Turn
   * it off when the agents do not have the tool (createHistorySearchTool). @default true
   */
  announce?: boolean;
}

export interface CompactOverrides {
  compactionRatio?: number;
  keepTokens?: number;
  targetTokens?: number;
  summaryTokens?: number;
}

export interface PrepareOptions extends CompactOverrides {
  /**
   * Write nothing unless the compacted thread holds at most this many tokens: the plan is cut harder first (all but
   * the latest turn); when even that would not fit, the report says so and nothing is summarized.
   */
  maxTokensAfter?: number;
  /**
   * Aim to end at most this many tokens (a margin under `maxTokensAfter`): a plan that would end above it is cut
   * harder (all but the latest turn) — never by shrinking the running summary, which would drop facts for good. When
   * even the hardest cut ends above it, the plan is written anyway if it ends under `maxTokensAfter`, and says so.
   */
  preferTokensAfter?: number;
  /** How long to wait for a gap when the head is busy with a run. @default the manager's busyWaitMs */
  busyWaitMs?: number;
}

/** A summary computed from a snapshot of a thread's head, ready for `applyCompaction`. */
export interface PreparedCompaction {
  readonly status: "prepared";
  readonly threadId: string;
  /** The head the summary was computed from. */
  readonly snapshotCheckpointId: string;
  readonly snapshotLength: number;
  /** The snapshot's first `plan.prefixLength` messages: what the summary replaces. */
  readonly prefix: readonly BaseMessage[];
  readonly compacted: CompactedMessages;
  readonly messagesBefore: number;
  readonly tokensBefore: number;
}

export interface CompactedMessages {
  /** `[leading system messages, summary, kept messages]`. */
  messages: BaseMessage[];
  summary: BaseMessage;
  plan: CompactionPlan;
  summarizerMs: number;
  /** The summarizer that wrote the summary (the fallback when the first one failed). */
  summarizer: Summarizer;
  /** Why the configured summarizer was passed over for the fallback, if it was. */
  fallbackReason?: string;
}

/**
 * The replacement checkpoint of the recipe in DESIGN.md: a copy of `base` (the head itself, or for recovery the last
 * checkpoint before a failed turn) with `messages` replaced and its version bumped, written after `head`: the id
 * right after the head's, step + 1, `source: "update"`. `baseVersion` feeds the saver's `getNextVersion`.
 */
function buildReplacement(
  head: CheckpointTuple,
  base: CheckpointTuple,
  messages: readonly BaseMessage[],
  extraMetadata: Record<string, unknown> | undefined,
): { id: string; baseVersion: number | string | undefined; build: ReplacementBuilder } {
  const step = ((head.metadata?.step as number | undefined) ?? -1) + 1;
  const id = idAfter(head.checkpoint.id, step);
  const baseVersion = maxVersion({ head: maxVersion(head.checkpoint.channel_versions) ?? 0, base: maxVersion(base.checkpoint.channel_versions) ?? 0 });
  const build: ReplacementBuilder = (version) => {
    const checkpoint = copyCheckpoint(base.checkpoint);
    checkpoint.id = id;
    checkpoint.ts = new Date().toISOString();
    checkpoint.channel_values = { ...checkpoint.channel_values, messages: [...messages] };
    checkpoint.channel_versions = { ...checkpoint.channel_versions, messages: version };
    const metadata = {
      source: "update",
      step,
      parents: (base.metadata?.parents as Record<string, string> | undefined) ?? {},
      ...extraMetadata,
    } as CheckpointMetadata;
    return { checkpoint, metadata, newVersions: { messages: version } };
  };
  return { id, baseVersion, build };
}

/** The result of `work`, with any store error (a raw SqliteError, a pg DatabaseError) as a CompactionError. */
async function storeErrors<T>(threadId: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw asStoreError(error, threadId);
  }
}

export class HistoryManager {
  readonly checkpointer: BaseCheckpointSaver;
  readonly summarizer: Summarizer;
  readonly fallbackSummarizer?: Summarizer;
  readonly counter: TokenCounter;
  private readonly compactionRatio: number;
  private readonly keepTokens?: number;
  private readonly targetTokens?: number;
  private readonly summaryTokens?: number;
  private readonly pinned?: PinPredicate;
  private readonly summaryRole: SummaryRole;
  private readonly summaryTimeoutMs: number;
  private readonly maxWriteAttempts: number;
  private readonly busyWaitMs: number;
  private overheadTokens?: number;
  private readonly graph?: StateReader;
  private readonly writer: CompareAndSwapWriter;
  private readonly recall: { enabled: boolean; announce: boolean };

  /** @throws CompactionError INVALID_ARGUMENT naming the bad option and its value. */
  constructor(options: HistoryManagerOptions) {
    if (typeof options !== "object" || options === null) throw invalidArgument("options", options, "an object");
    const { checkpointer, summarizer, model, compactionRatio = DEFAULT_COMPACTION_RATIO, keepTokens } = options;
    if (
      typeof checkpointer !== "object" ||
      checkpointer === null ||
      typeof (checkpointer as BaseCheckpointSaver).getTuple !== "function" ||
      typeof (checkpointer as BaseCheckpointSaver).put !== "function"
    ) {
      throw new CompactionError({
        code: "MISSING_CHECKPOINTER",
        parameter: "checkpointer",
        value: checkpointer,
        message: `checkpointer must be a LangGraph checkpoint saver (MemorySaver, SqliteSaver, PostgresSaver...); got ${checkpointer === undefined ? "none" : typeof checkpointer}`,
      });
    }
    if (summarizer !== undefined && typeof (summarizer as Summarizer).summarize !== "function") {
      throw invalidArgument("summarizer", summarizer, "an object with summarize() (ExtractiveSummarizer, LlmSummarizer)");
    }
    if (keepTokens !== undefined && (!Number.isInteger(keepTokens) || keepTokens < 0)) {
      throw invalidArgument("keepTokens", keepTokens, "a non-negative integer");
    }
    const summaryTimeoutMs = options.summaryTimeoutMs ?? DEFAULT_SUMMARY_TIMEOUT_MS;
    if (!Number.isFinite(summaryTimeoutMs) || summaryTimeoutMs <= 0) {
      throw invalidArgument("summaryTimeoutMs", summaryTimeoutMs, "a positive number of milliseconds");
    }
    const maxWriteAttempts = options.maxWriteAttempts ?? DEFAULT_MAX_WRITE_ATTEMPTS;
    if (!Number.isInteger(maxWriteAttempts) || maxWriteAttempts < 1) {
      throw invalidArgument("maxWriteAttempts", maxWriteAttempts, "an integer >= 1");
    }
    const summaryRole = options.summaryRole ?? DEFAULT_SUMMARY_ROLE;
    if (!["human", "system", "ai"].includes(summaryRole)) {
      throw invalidArgument("summaryRole", summaryRole, '"human", "system" or "ai"');
    }
    this.checkpointer = checkpointer;
    this.compactionRatio = validateRatio("compactionRatio", compactionRatio);
    this.keepTokens = keepTokens;
    if (options.targetTokens !== undefined && (!Number.isInteger(options.targetTokens) || options.targetTokens < 0)) {
      throw invalidArgument("targetTokens", options.targetTokens, "a non-negative integer");
    }
    this.targetTokens = options.targetTokens;
    if (options.summaryTokens !== undefined && (!Number.isInteger(options.summaryTokens) || options.summaryTokens < 64)) {
      throw invalidArgument("summaryTokens", options.summaryTokens, "an integer >= 64");
    }
    this.summaryTokens = options.summaryTokens;
    this.pinned = validatePredicate(options.pinned);
    this.counter = options.counter ?? new TokenCounter({ model: options.tokenModel });
    this.summarizer = summarizer ?? (model ? new LlmSummarizer({ model }) : createDefaultSummarizer({ counter: this.counter }));
    const fallback = options.fallbackSummarizer;
    if (fallback !== undefined && fallback !== "extractive" && typeof (fallback as Summarizer)?.summarize !== "function") {
      throw invalidArgument("fallbackSummarizer", fallback, '"extractive" or an object with summarize()');
    }
    this.fallbackSummarizer = fallback === "extractive" ? new ExtractiveSummarizer({ counter: this.counter }) : fallback;
    this.summaryRole = summaryRole;
    this.summaryTimeoutMs = summaryTimeoutMs;
    this.maxWriteAttempts = maxWriteAttempts;
    const busyWaitMs = options.busyWaitMs ?? DEFAULT_BUSY_WAIT_MS;
    if (typeof busyWaitMs !== "number" || !Number.isFinite(busyWaitMs) || busyWaitMs < 0) {
      throw invalidArgument("busyWaitMs", busyWaitMs, "a number of milliseconds >= 0");
    }
    this.busyWaitMs = busyWaitMs;
    this.graph = options.graph;
    const recall = options.recall ?? true;
    if (typeof recall !== "boolean" && (typeof recall !== "object" || recall === null || Array.isArray(recall))) {
      throw invalidArgument("recall", recall, "true, false or { language, announce }");
    }
    const recallOptions = typeof recall === "object" ? recall : {};
    if (recallOptions.announce !== undefined && typeof recallOptions.announce !== "boolean") throw invalidArgument("recall.announce", recallOptions.announce, "true or false");
    this.recall = { enabled: recall !== false, announce: recall !== false && recallOptions.announce !== false };
    this.writer = createWriter(checkpointer, { recallLanguage: validateLanguage(recallOptions.language ?? DEFAULT_POSTGRES_LANGUAGE) });
  }

  /** Which compare-and-swap this manager uses: "sqlite", "postgres", or "generic" (best effort). */
  get backend(): CompareAndSwapWriter["backend"] {
    return this.writer.backend;
  }

  /**
   * The dry run: what `compactThread` would summarize and keep. Pure. A cut given in `overrides` (ratio, keepTokens
   * or targetTokens) replaces the manager's own: a ratio asked for by one call is not overruled by a default target.
   */
  planCompaction(messages: readonly BaseMessage[], overrides: CompactOverrides = {}): CompactionPlan {
    const ownCut = overrides.compactionRatio !== undefined || overrides.keepTokens !== undefined || overrides.targetTokens !== undefined;
    return planCompaction(messages, {
      compactionRatio: overrides.compactionRatio ?? this.compactionRatio,
      keepTokens: ownCut ? overrides.keepTokens : this.keepTokens,
      targetTokens: ownCut ? overrides.targetTokens : this.targetTokens,
      summaryTokens: overrides.summaryTokens ?? this.summaryTokens,
      pinned: this.pinned,
      counter: this.counter,
    });
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
    return this.summarizePlan(plan, overrides.replacedCheckpointId);
  }

  private async summarizePlan(plan: CompactionPlan, replacedCheckpointId: string | undefined): Promise<CompactedMessages> {
    const previous = plan.previousSummary ? getSummaryProvenance(plan.previousSummary) : undefined;
    const started = performance.now();
    let summarizer = this.summarizer;
    let fallbackReason: string | undefined;
    let text: string;
    try {
      text = await this.runSummarizer(summarizer, plan);
    } catch (error) {
      if (!this.fallbackSummarizer || !CompactionError.isInstance(error) || error.code !== "SUMMARIZER_FAILED") throw error;
      fallbackReason = error.message;
      summarizer = this.fallbackSummarizer;
      text = await this.runSummarizer(summarizer, plan);
    }
    const summarizerMs = performance.now() - started;
    const ids = plan.summarize.map((message) => message.id).filter((id): id is string => typeof id === "string");
    const summary = createSummaryMessage(
      text,
      {
        replacedCheckpointId: replacedCheckpointId ?? null,
        coveredMessages: plan.summarize.length + (previous?.coveredMessages ?? 0),
        coveredTokens: plan.tokens.summarized - (plan.previousSummary ? this.counter.countMessage(plan.previousSummary) : 0) + (previous?.coveredTokens ?? 0),
        firstCoveredId: previous?.firstCoveredId ?? plan.summarize[0]?.id ?? null,
        lastCoveredId: plan.summarize.at(-1)?.id ?? null,
        coveredIds: ids,
        previousSummaryId: plan.previousSummary?.id ?? null,
        summarizer: summarizer.name,
        model: summarizer.model ?? null,
        ...(fallbackReason ? { fallbackReason } : {}),
      },
      this.summaryRole,
      { searchable: this.recall.announce },
    );
    const result = [...plan.system, summary, ...plan.keep];
    const problems = validateHistory(result);
    if (problems.length > 0) {
      throw new CompactionError({ code: "INVALID_HISTORY", message: `the compacted history would be invalid: ${problems[0]!.message}` });
    }
    return { messages: result, summary, plan, summarizerMs, summarizer, fallbackReason };
  }

  private async runSummarizer(summarizer: Summarizer, plan: CompactionPlan): Promise<string> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new CompactionError({
          code: "SUMMARIZER_FAILED",
          value: this.summaryTimeoutMs,
          message: `the summarizer did not answer within ${this.summaryTimeoutMs} ms (summaryTimeoutMs)`,
        });
        controller.abort(error);
        reject(error);
      }, this.summaryTimeoutMs);
    });
    try {
      const text = await Promise.race([
        summarizer.summarize({
          previousSummary: plan.previousSummary ? summaryText(plan.previousSummary) : undefined,
          previousCoveredMessages: plan.previousSummary ? getSummaryProvenance(plan.previousSummary)?.coveredMessages : undefined,
          messages: plan.summarize,
          tokenBudget: plan.tokens.summaryBudget,
          signal: controller.signal,
        }),
        timeout,
      ]);
      if (typeof text !== "string") {
        throw new CompactionError({ code: "SUMMARIZER_FAILED", value: text, message: `the summarizer returned ${typeof text}, not text` });
      }
      return validateSummaryText(text, plan.tokens.summaryBudget);
    } catch (error) {
      if (CompactionError.isInstance(error)) throw error;
      throw new CompactionError({
        code: "SUMMARIZER_FAILED",
        message: `the summarizer failed: ${error instanceof Error ? error.message : String(error)}`,
        cause: error,
      });
    } finally {
      clearTimeout(timer);
    }
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
    return storeErrors(threadId, threadLocks.run(this.checkpointer, threadId, () => this.replaceUnlocked(threadId, messages, expectedCheckpointId, metadata)));
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
    return storeErrors(threadId, threadLocks.run(this.checkpointer, threadId, () => this.replaceUnlocked(threadId, messages, head.tuple.checkpoint.id, metadata, head)));
  }

  /**
   * `knownHead`: the head just read by compactThread, to avoid deserializing the thread twice; the
   * compare-and-swap still checks, inside the write transaction, that it is the head.
   */
  private async replaceUnlocked(
    threadId: string,
    messages: readonly BaseMessage[],
    expectedCheckpointId: string | undefined,
    extraMetadata: Record<string, unknown> | undefined,
    knownHead?: ThreadHead,
  ): Promise<{ checkpointId: string; previousCheckpointId: string }> {
    const problems = validateHistory(messages);
    if (problems.length > 0) {
      throw new CompactionError({ code: "INVALID_HISTORY", value: problems, message: `refusing to write an invalid history: ${problems[0]!.message}` });
    }
    const head = knownHead ?? (await readThreadHead(this.checkpointer, threadId, this.graph));
    if (!head) {
      throw threadNotFound(threadId);
    }
    const headId = head.tuple.checkpoint.id;
    if (expectedCheckpointId !== undefined && headId !== expectedCheckpointId) {
      throw new CompactionError({
        code: "WRITE_CONFLICT",
        value: expectedCheckpointId,
        message: `thread ${threadId}: the head is ${headId}, not the expected ${expectedCheckpointId}`,
      });
    }
    if (head.busyReason) {
      throw new CompactionError({ code: "THREAD_BUSY", value: threadId, message: `thread ${threadId} is not idle: ${head.busyReason}` });
    }
    const replacement = buildReplacement(head.tuple, head.tuple, messages, extraMetadata);
    const outcome = await this.writer.write({
      threadId,
      expectedCheckpointId: headId,
      proposedVersion: this.checkpointer.getNextVersion(replacement.baseVersion as number | undefined),
      build: replacement.build,
      ...(this.recall.enabled ? { recall: recallChanges(threadId, headId, head.messages, messages) } : {}),
    });
    const newId = replacement.id;
    if (outcome.status === "busy") {
      throw new CompactionError({ code: "THREAD_BUSY", value: threadId, message: `thread ${threadId} is not idle: ${outcome.reason}` });
    }
    if (outcome.status === "conflict") {
      throw new CompactionError({ code: "WRITE_CONFLICT", value: outcome.headCheckpointId, message: `thread ${threadId}: ${outcome.reason}` });
    }
    return { checkpointId: newId, previousCheckpointId: headId };
  }

  /**
   * Recovery after a turn failed because the request outgrew the model's window: the head is whatever the failed
   * run left (its input, maybe partial work, an error write). This writes, after that head, a checkpoint made from
   * the last checkpoint before the failed turn (`baseCheckpointId`), with its history compacted harder — so the turn
   * can be retried from an idle thread and its input appears exactly once. The failed attempt stays in the history.
   * @returns the report; `skipped` when the pre-turn history cannot be compacted.
   */
  async recoverFailedTurn(config: unknown, { baseCheckpointId, compactionRatio = 0.8 }: { baseCheckpointId: string; compactionRatio?: number }): Promise<CompactionReport> {
    const threadId = requireThreadId(config, "recoverFailedTurn");
    validateRatio("compactionRatio", compactionRatio);
    return threadLocks.run(this.checkpointer, threadId, async () => {
      const current = await this.checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } });
      const base = await this.checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: baseCheckpointId } });
      if (!current || !base) {
        throw new CompactionError({ code: "CHECKPOINT_NOT_FOUND", value: baseCheckpointId, message: `thread ${threadId}: checkpoint ${baseCheckpointId} not found` });
      }
      const messages = (base.checkpoint.channel_values as Record<string, unknown>).messages;
      const history = Array.isArray(messages) ? (messages as BaseMessage[]) : [];
      const report = { threadId, previousCheckpointId: current.checkpoint.id, messagesBefore: history.length, tokensBefore: this.counter.countMessages(history), summarizer: this.summarizer.name, attempts: 1 };
      const plan = this.planCompaction(history, { compactionRatio });
      if (!plan.executable) return { ...report, status: "skipped" as const, reason: plan.reason };
      const compacted = await this.summarizePlan(plan, base.checkpoint.id);
      const replacement = buildReplacement(current, base, compacted.messages, {
        compaction: { replacedCheckpointId: current.checkpoint.id, recoveredFrom: base.checkpoint.id, summarizedMessages: plan.summarize.length, summaryId: compacted.summary.id },
      });
      const newId = replacement.id;
      const started = performance.now();
      const outcome = await this.writer.write({
        threadId,
        expectedCheckpointId: current.checkpoint.id,
        proposedVersion: this.checkpointer.getNextVersion(replacement.baseVersion as number | undefined),
        ignorePendingWrites: true,
        build: replacement.build,
        // The messages summarized out of the pre-turn history are held by the checkpoint before the failed turn.
        ...(this.recall.enabled ? { recall: recallChanges(threadId, base.checkpoint.id, history, compacted.messages) } : {}),
      });
      if (outcome.status !== "written") return { ...report, status: "conflict" as const, reason: outcome.reason };
      return { ...report, ...this.compactedFields(`recovered from an overflowing turn: ${plan.reason}`, newId, compacted, started) };
    });
  }

  private compactedFields(reason: string, newCheckpointId: string, compacted: CompactedMessages, writeStarted: number, messages: readonly BaseMessage[] = compacted.messages) {
    return {
      status: "compacted" as const,
      reason,
      newCheckpointId,
      messagesAfter: messages.length,
      tokensAfter: this.counter.countMessages(messages),
      summarizedMessages: compacted.plan.summarize.length,
      keptMessages: messages.length - compacted.plan.system.length - 1,
      summaryId: compacted.summary.id,
      summarizer: compacted.summarizer.name,
      ...(compacted.fallbackReason ? { fallbackReason: compacted.fallbackReason } : {}),
      summarizerMs: compacted.summarizerMs,
      writeMs: performance.now() - writeStarted,
    };
  }

  /**
   * Read the thread, plan, summarize and write. The summary is computed from a snapshot of the head without holding
   * the thread's write lock, then applied by a rebasing compare-and-swap (applyCompaction): turns may land on the
   * thread meanwhile, and are carried over. Only a head whose summarized prefix changed discards the summary (then
   * the thread is read and summarized again, up to `maxWriteAttempts` times). Never throws for a thread that cannot
   * be compacted now (busy, interrupted, nothing to summarize, lost every race): the report says why.
   * @throws CompactionError MISSING_THREAD_ID, THREAD_NOT_FOUND, INVALID_HISTORY (non-message values),
   *   SUMMARIZER_FAILED (nothing was written).
   */
  async compactThread(config: unknown, overrides: PrepareOptions = {}): Promise<CompactionReport> {
    const threadId = requireThreadId(config, "compactThread");
    return storeErrors(threadId, summaryLocks.run(this.checkpointer, threadId, async () => {
      let last: CompactionReport | undefined;
      for (let attempt = 1; attempt <= this.maxWriteAttempts; attempt++) {
        const prepared = await this.prepareUnlocked(threadId, overrides);
        if (prepared.status !== "prepared") return { ...prepared, attempts: attempt };
        const { report, prefixChanged } = await this.applyPrepared(prepared, overrides.busyWaitMs ?? this.busyWaitMs);
        if (!prefixChanged) return report;
        last = report;
      }
      return { ...last!, reason: `gave up after ${this.maxWriteAttempts} summaries: ${last!.reason}`, attempts: this.maxWriteAttempts };
    }));
  }

  /**
   * The first half of `compactThread`: read the head, plan, summarize. Writes nothing. One summary at a time per
   * thread in this process. Returns the summary ready to apply, or a `skipped` report saying why there is none.
   * @throws as compactThread.
   */
  async prepareCompaction(config: unknown, options: PrepareOptions = {}): Promise<PreparedCompaction | CompactionReport> {
    const threadId = requireThreadId(config, "prepareCompaction");
    return storeErrors(threadId, summaryLocks.run(this.checkpointer, threadId, () => this.prepareUnlocked(threadId, options)));
  }

  /**
   * The second half: write a prepared summary onto the thread's current head — as computed when the head has not
   * moved, rebased when the thread only grew since (`report.rebased`), not at all when the summarized prefix
   * changed (`conflict`). A head busy with a run is waited for up to `busyWaitMs` (default: the manager's
   * `busyWaitMs`), then `skipped`; the prepared summary stays valid for a later call.
   */
  async applyCompaction(prepared: PreparedCompaction, { busyWaitMs = this.busyWaitMs }: { busyWaitMs?: number } = {}): Promise<CompactionReport> {
    return (await storeErrors(prepared.threadId, this.applyPrepared(prepared, busyWaitMs))).report;
  }

  private async prepareUnlocked(threadId: string, options: PrepareOptions): Promise<PreparedCompaction | CompactionReport> {
    const { head, headId, base } = await this.readHead(threadId, this.summarizer.name, 1);
    if (head.busyReason) return { ...base, status: "skipped", reason: head.busyReason };
    let plan = this.planCompaction(head.messages, options);
    if (!plan.executable) return { ...base, status: "skipped", reason: plan.reason };
    if (options.maxTokensAfter !== undefined || options.preferTokensAfter !== undefined) {
      const fitted = this.planWithin(head.messages, plan, options);
      if (typeof fitted === "string") return { ...base, status: "skipped", reason: fitted };
      plan = fitted;
    }
    const compacted = await this.summarizePlan(plan, headId);
    if (options.maxTokensAfter !== undefined) {
      const after = this.counter.countMessages(compacted.messages);
      if (after > options.maxTokensAfter) {
        return {
          ...base,
          status: "skipped",
          summarizerMs: compacted.summarizerMs,
          reason: `the compacted thread would hold ${after} tokens (the summary came out at ${this.counter.countMessage(compacted.summary)}), not under the ceiling of ${options.maxTokensAfter}: nothing written`,
        };
      }
    }
    return {
      status: "prepared",
      threadId,
      snapshotCheckpointId: headId,
      snapshotLength: head.messages.length,
      prefix: head.messages.slice(0, plan.prefixLength),
      compacted,
      messagesBefore: base.messagesBefore,
      tokensBefore: base.tokensBefore,
    };
  }

  /** Tokens a summary message adds besides its text: the header line and the message framing. Counted once. */
  private summaryOverhead(): number {
    const header = this.recall.announce ? SEARCHABLE_SUMMARY_HEADER : SUMMARY_HEADER;
    this.overheadTokens ??= this.counter.countText(`${header}\n`) + MESSAGE_FRAMING_TOKENS;
    return this.overheadTokens;
  }

  /**
   * A plan that ends under `preferTokensAfter` (the plan, else the hardest cut: everything before the latest turn),
   * else one that ends under `maxTokensAfter` (saying it ends above the aim); or why none does, and then nothing is
   * summarized. The running summary's budget is never shrunk to make a plan fit: that drops facts for good.
   */
  private planWithin(messages: readonly BaseMessage[], plan: CompactionPlan, options: PrepareOptions): CompactionPlan | string {
    const max = options.maxTokensAfter ?? Infinity;
    const prefer = Math.min(options.preferTokensAfter ?? max, max);
    const overhead = this.summaryOverhead();
    const estimate = (candidate: CompactionPlan) => candidate.tokens.afterEstimate + overhead;
    if (estimate(plan) <= prefer) return plan;
    const harder = this.planCompaction(messages, { ...options, keepTokens: 0, targetTokens: undefined });
    if (harder.executable && estimate(harder) <= prefer) return { ...harder, reason: `${harder.reason}; cut harder to end under ${prefer} tokens` };
    const best = harder.executable && estimate(harder) < estimate(plan) ? harder : plan;
    if (estimate(plan) <= max || estimate(best) <= max) {
      const chosen = estimate(plan) <= max ? plan : best;
      return { ...chosen, reason: `${chosen.reason}; ends at about ${estimate(chosen)} tokens, above the ${prefer} aimed at (the latest turn and the summary alone take that much)` };
    }
    return (
      `compacting would leave about ${estimate(best)} tokens (${best.tokens.system} system, ${best.tokens.kept} kept verbatim or pinned, ` +
      `a summary of at least ${best.tokens.summaryBudget}), not under the ceiling of ${max}: nothing written`
    );
  }

  private async applyPrepared(prepared: PreparedCompaction, busyWaitMs: number): Promise<{ report: CompactionReport; prefixChanged: boolean }> {
    const deadline = performance.now() + busyWaitMs;
    let delay = BUSY_RETRY_MS;
    for (let attempt = 1; ; attempt++) {
      const outcome = await threadLocks.run(this.checkpointer, prepared.threadId, () => this.applyOnce(prepared, attempt));
      if (outcome.kind === "done") return { report: outcome.report, prefixChanged: outcome.prefixChanged };
      const remaining = deadline - performance.now();
      if (outcome.kind === "moved" && attempt < this.maxWriteAttempts) continue;
      if (outcome.kind === "busy" && outcome.waitable && remaining > 0) {
        await new Promise((resolve) => setTimeout(resolve, Math.min(delay, remaining)));
        delay = Math.min(delay * 2, MAX_BUSY_RETRY_MS);
        continue;
      }
      const report: CompactionReport =
        outcome.kind === "busy"
          ? { ...outcome.base, status: "skipped", reason: `${outcome.reason} (the prepared summary was not applied)` }
          : { ...outcome.base, status: "conflict", reason: `gave up after ${attempt} attempts: ${outcome.reason}` };
      return { report, prefixChanged: false };
    }
  }

  /** The thread's head, and the report fields every outcome on it starts from. */
  private async readHead(threadId: string, summarizer: string, attempts: number): Promise<{ head: ThreadHead; headId: string; base: ReportBase }> {
    const head = await readThreadHead(this.checkpointer, threadId, this.graph);
    if (!head) throw threadNotFound(threadId);
    const headId = head.tuple.checkpoint.id;
    const base = { threadId, previousCheckpointId: headId, messagesBefore: head.messages.length, tokensBefore: this.counter.countMessages(head.messages), summarizer, attempts };
    return { head, headId, base };
  }

  private async applyOnce(prepared: PreparedCompaction, attempt: number): Promise<ApplyOutcome> {
    const { threadId, compacted } = prepared;
    const { head, headId, base } = await this.readHead(threadId, compacted.summarizer.name, attempt);
    if (head.busyReason) return { kind: "busy", reason: head.busyReason, waitable: head.busyKind === "run", base };
    const moved = headId !== prepared.snapshotCheckpointId;
    const rebased = moved
      ? rebaseCompaction(compacted, prepared.prefix, head.messages, prepared.snapshotLength)
      : { ok: true as const, messages: compacted.messages, appended: 0 };
    if (!rebased.ok) {
      return { kind: "done", prefixChanged: true, report: { ...base, status: "conflict", reason: `the summary was discarded: ${rebased.reason}` } };
    }
    const writeStarted = performance.now();
    try {
      const written = await this.replaceUnlocked(threadId, rebased.messages, headId, {
        compaction: {
          replacedCheckpointId: headId,
          summarizedMessages: compacted.plan.summarize.length,
          summaryId: compacted.summary.id,
          ...(moved ? { rebasedFrom: prepared.snapshotCheckpointId } : {}),
        },
      }, head);
      const reason = moved ? `${compacted.plan.reason}; rebased onto a head ${rebased.appended} message(s) longer` : compacted.plan.reason;
      return {
        kind: "done",
        prefixChanged: false,
        report: {
          ...base,
          ...this.compactedFields(reason, written.checkpointId, compacted, writeStarted, rebased.messages),
          ...(moved ? { rebased: { snapshotCheckpointId: prepared.snapshotCheckpointId, appendedMessages: rebased.appended } } : {}),
        },
      };
    } catch (error) {
      if (!CompactionError.isInstance(error)) throw error;
      if (error.code === "THREAD_BUSY") return { kind: "busy", reason: error.message, waitable: true, base };
      if (error.code === "WRITE_CONFLICT") return { kind: "moved", reason: error.message, base };
      throw error;
    }
  }
}

type ReportBase = Pick<CompactionReport, "threadId" | "previousCheckpointId" | "summarizer" | "attempts"> & { messagesBefore: number; tokensBefore: number };

type ApplyOutcome =
  | { kind: "done"; report: CompactionReport; prefixChanged: boolean }
  | { kind: "busy"; reason: string; waitable: boolean; base: ReportBase }
  | { kind: "moved"; reason: string; base: ReportBase };
