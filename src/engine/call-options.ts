import type { BaseMessage } from "@langchain/core/messages";
import type { LivePrompt } from "../summarizers/types.js";
import type { MeasuredContext } from "./calibration.js";

/** What one call of the engine may ask instead of the policy: a cut (`CompactOverrides`), and how to prepare. */
/** A cut asked for by one call, instead of the policy's. */
export interface CompactOverrides {
  compactionRatio?: number;
  keepTokens?: number;
  /** Keep at least the newest this many messages verbatim. */
  keepMessages?: number;
  targetTokens?: number;
  summaryTokens?: number;
  /**
   * Provider tokens per tokenizer token (a calibrated count's `ratio`): the policy's budgets, which are in the
   * provider's tokens, are divided by it to plan in the tokenizer's. @default 1
   */
  tokenRatio?: number;
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
  /** `compactThread`: compact even a thread at or under the policy's `tokenLimit`. @default false */
  force?: boolean;
  /**
   * `prepareCompaction` at a `checkpoint_id`: when that checkpoint is gone (a prune deleted it meanwhile, as
   * `keepCheckpoints` does between a turn and its compaction), summarize the thread's head instead of throwing
   * CHECKPOINT_NOT_FOUND: the snapshot was only where to start, and a rebase carries the summary onto the head
   * anyway. @default false
   */
  orHead?: boolean;
  /** Abandons the summary in flight when it aborts (a worker stopping): nothing is written. */
  signal?: AbortSignal;
  /** The thread being compacted: its notices (a `keep` kept less) are said once per thread. */
  threadId?: string;
  /** The prompt the agent's model read last, for a summarizer that starts its request with it (summarizers/types.ts). */
  prompt?: LivePrompt;
  /**
   * The caller's count of the thread as it last saw it (the wrapper's, after the turn): used for the head read when
   * the head holds the same messages (by id, in order), so the head is not counted a second time.
   */
  counted?: { messages: readonly BaseMessage[]; measured: MeasuredContext };
}
