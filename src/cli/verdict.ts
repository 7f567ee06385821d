/**
 * Whether `compact` would compact a thread now, and why not: the one answer `inspect` and `compact` (a dry run too)
 * give. The count is the engine's (calibrated by the provider's figures where replies carry them), the plan the one
 * the engine writes (the policy's cut, cut harder when it would not end under the ceiling), and, when that costs
 * nothing (the offline summarizer) or the thread is written anyway, the summary itself: a plan whose summary would
 * not end under the ceiling is not compactable.
 */
import type { HistoryManager, PreparedCompaction } from "../engine/history-manager.js";
import { isOverLimit } from "../engine/limits.js";
import type { CompactionPlan } from "../engine/plan.js";
import type { ThreadHead } from "../store/read-head.js";
import { ExtractiveSummarizer } from "../summarizers/extractive.js";
import { type CliContext } from "./context.js";
import { limitText } from "./thread-limit.js";
import { number } from "./format.js";

export interface Verdict {
  tokens: number;
  /** The provider's count over the tokenizer's (1 where no reply carries usage figures). */
  tokenRatio: number;
  calibrated: boolean;
  over: boolean;
  /** The policy's cut, before it is fitted under the ceiling. */
  asked: CompactionPlan;
  fitted: ReturnType<HistoryManager["fitPlan"]>;
  /** The summary, computed when that costs nothing or `summarize` asked for it. */
  prepared?: PreparedCompaction;
  compactable: boolean;
  /** Why it is not compactable, or what the plan does. */
  reason: string;
}

export async function compactVerdict(
  context: CliContext,
  manager: HistoryManager,
  threadId: string,
  head: ThreadHead,
  { summarize }: { summarize: boolean },
): Promise<Verdict> {
  const measured = await manager.calibration.count(head.messages);
  const { tokens, ratio: tokenRatio } = measured;
  const over = isOverLimit(context.policy, tokens, head.messages.length);
  const asked = manager.planCompaction(head.messages, { tokenRatio });
  let fitted = manager.fitPlan(head.messages, { tokenRatio });
  let prepared: PreparedCompaction | undefined;
  if (
    over &&
    !head.busyReason &&
    "plan" in fitted &&
    (summarize || context.summarizer instanceof ExtractiveSummarizer)
  ) {
    const result = await manager.prepareCompaction({ configurable: { thread_id: threadId } });
    if (result.status === "prepared") prepared = result;
    else if (result.status === "skipped") fitted = { skipped: result.reason, code: result.code };
  }
  const reason =
    head.busyReason ??
    (!over
      ? `${number(tokens)} tokens, not over the limit of ${limitText(context)}: compact writes nothing`
      : "skipped" in fitted
        ? fitted.skipped
        : (prepared?.compacted.plan ?? fitted.plan).reason);
  const compactable = head.busyReason === undefined && over && "plan" in fitted;
  return { tokens, tokenRatio, calibrated: measured.calibrated, over, asked, fitted, prepared, compactable, reason };
}
