/**
 * Planning a compaction: pure, no I/O — the dry run that `compactThread` executes.
 *
 * The history is read as [leading system messages][previous summary?][body]. A cut index splits the body into the
 * part to summarize and the part kept verbatim. The cut always falls between atomic units (units.ts), never before
 * the latest user message (the current turn is never summarized), and the planned result must pass
 * `validateHistory`, otherwise the plan is not executable.
 */

import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { argument, parseOptions } from "../options/check.js";
import { array, integer, never, ratio as RATIO } from "../options/rules.js";

const MESSAGES = array("an array of BaseMessage");
const TOKENS = integer(0, { says: "a non-negative integer number of tokens" });
/** The plan's own figures. */
const PLAN_FIELDS = {
  keepTokens: TOKENS,
  targetTokens: TOKENS,
  summaryTokens: integer(64),
  keepMessages: integer(0, { says: "an integer >= 0 (the latest user turn is kept whatever it says)" }),
};
/** The smallest summary budget ever given, however short the segment. */
export const FLOOR_SUMMARY_TOKENS = 64;
import { isPinned } from "../messages/pins.js";
import { REPLY_PRIMING_TOKENS } from "../tokens/chat-format.js";
import { sharedCounter } from "../tokens/shared-counter.js";
import { isSummaryMessage } from "../messages/summary-message.js";
import { groupUnits } from "../messages/units.js";
import { validateHistory } from "../messages/validate.js";
import type { CompactionPlan, PlanOptions } from "./plan-shape.js";

export type { CompactionPlan, PlanOptions } from "./plan-shape.js";

export const DEFAULT_COMPACTION_RATIO = 0.5;
/** Summary budget: this share of the summarized tokens... */
export const DEFAULT_SUMMARY_BUDGET_RATIO = 0.2;
/** ...at least this many tokens... */
export const MIN_SUMMARY_TOKENS = 256;
/** ...and at most this many. */
export const MAX_SUMMARY_TOKENS = 2_000;
/**
 * An explicit summary budget (`summaryTokens`) is capped at this share of what the summary replaces (the segment
 * plus any previous summary folded in): a compaction always frees at least a quarter of what it summarizes.
 */
export const MAX_SUMMARY_SHARE = 0.75;

/**
 * The summary budget for `tokens` of summarized text (including any previous summary being folded in): 20% of it,
 * at least 256 and at most 2,000 tokens — but never more than half the summarized text, so a compaction always
 * shrinks the history (down to a floor of 64 tokens for tiny segments).
 */
export function summaryBudget(tokens: number): number {
  const budget = Math.max(
    MIN_SUMMARY_TOKENS,
    Math.min(MAX_SUMMARY_TOKENS, Math.round(tokens * DEFAULT_SUMMARY_BUDGET_RATIO)),
  );
  return Math.max(FLOOR_SUMMARY_TOKENS, Math.min(budget, Math.floor(tokens / 2)));
}

/**
 * Plan the compaction of `messages`. Pure: reads nothing, writes nothing, never mutates its input.
 * @throws CompactionError INVALID_ARGUMENT for an out-of-range ratio or keepTokens, or a non-array.
 */
export function planCompaction(messages: readonly BaseMessage[], options: PlanOptions = {}): CompactionPlan {
  argument("messages", messages, MESSAGES);
  const ratio = argument("compactionRatio", options.compactionRatio ?? DEFAULT_COMPACTION_RATIO, RATIO);
  parseOptions("planCompaction", PLAN_FIELDS, {
    keepTokens: options.keepTokens,
    targetTokens: options.targetTokens,
    summaryTokens: options.summaryTokens,
    keepMessages: options.keepMessages,
  });
  const counter = options.counter ?? sharedCounter();
  const problem = validateHistory(messages).find((found) => found.code === "NOT_A_MESSAGE");
  if (problem !== undefined)
    argument("messages", messages[problem.index], never(`LangChain messages only (index ${problem.index})`));

  let systemEnd = 0;
  while (
    systemEnd < messages.length &&
    messages[systemEnd]!.getType() === "system" &&
    !isSummaryMessage(messages[systemEnd])
  ) {
    systemEnd++;
  }
  const system = messages.slice(0, systemEnd);
  const previousSummary =
    systemEnd < messages.length && isSummaryMessage(messages[systemEnd]) ? messages[systemEnd] : undefined;
  const bodyStart = systemEnd + (previousSummary ? 1 : 0);
  const body = messages.slice(bodyStart);
  // prefix[i] = tokens of messages[0..i): any range sums in O(1).
  const prefix = [0];
  for (const tokens of options.counts?.length === messages.length ? options.counts : counter.countEach(messages))
    prefix.push(prefix.at(-1)! + tokens);
  const sum = (from: number, to: number) => prefix[to]! - prefix[from]!;
  const before = REPLY_PRIMING_TOKENS + sum(0, messages.length);
  const systemTokens = sum(0, systemEnd);

  const units = groupUnits(body);
  let latestUser = -1;
  for (let index = body.length - 1; index >= 0; index--) {
    if (body[index]!.getType() === "human" && !isSummaryMessage(body[index])) {
      latestUser = index;
      break;
    }
  }
  // The cut may fall at the start of any unit up to the latest user message (or the last unit if there is none).
  const maxCut = latestUser >= 0 ? latestUser : (units.at(-1)?.start ?? 0);
  const boundaries = units.map((unit) => unit.start).filter((start) => start > 0 && start <= maxCut);

  const keepTokens =
    options.keepTokens ??
    (options.targetTokens === undefined
      ? undefined
      : Math.max(
          0,
          options.targetTokens -
            REPLY_PRIMING_TOKENS -
            systemTokens -
            (options.summaryTokens ?? summaryBudget(before - systemTokens)),
        ));
  const cut = chooseCut(boundaries, body.length, ratio, keepTokens, options.keepMessages, (from, to) =>
    sum(bodyStart + from, bodyStart + to),
  );
  const pinnedUnits = units.filter(
    (unit) =>
      unit.end <= cut &&
      body
        .slice(unit.start, unit.end)
        .some((message, offset) => isPinned(message, bodyStart + unit.start + offset, options.pinned)),
  );
  const summarizedUnits = units.filter((unit) => unit.end <= cut && !pinnedUnits.includes(unit));
  const summarize = summarizedUnits.flatMap((unit) => body.slice(unit.start, unit.end));
  const pinned = pinnedUnits.flatMap((unit) => body.slice(unit.start, unit.end));
  const keep = [...pinned, ...body.slice(cut)];
  const pinnedTokens = pinnedUnits.reduce(
    (total, unit) => total + sum(bodyStart + unit.start, bodyStart + unit.end),
    0,
  );
  const summarizedTokens =
    sum(bodyStart, bodyStart + cut) - pinnedTokens + (previousSummary ? sum(systemEnd, bodyStart) : 0);
  const keptTokens = sum(bodyStart + cut, messages.length) + pinnedTokens;
  const budget =
    options.summaryTokens === undefined
      ? summaryBudget(summarizedTokens)
      : Math.max(
          FLOOR_SUMMARY_TOKENS,
          Math.min(options.summaryTokens, Math.floor(summarizedTokens * MAX_SUMMARY_SHARE)),
        );
  const plan: CompactionPlan = {
    executable: false,
    reason: "",
    system,
    previousSummary,
    summarize,
    keep,
    prefixLength: bodyStart + cut,
    pinned,
    lastBeforeCut: body[cut - 1],
    units: { total: units.length, summarized: summarizedUnits.length },
    tokens: {
      before,
      summarized: summarizedTokens,
      kept: keptTokens,
      system: systemTokens,
      summaryBudget: budget,
      afterEstimate: REPLY_PRIMING_TOKENS + systemTokens + budget + keptTokens,
    },
    problems: [],
  };

  if (cut === 0 || summarize.length === 0) {
    plan.reason =
      body.length === 0
        ? "nothing to summarize: the history holds only system messages and a summary"
        : cut > 0
          ? "nothing to summarize: every message before the cut is pinned"
          : options.keepMessages !== undefined && options.keepTokens === undefined
            ? `nothing to summarize: every cut would keep fewer than the newest ${options.keepMessages} messages`
            : boundaries.length === 0
              ? "nothing to summarize: the history is the latest turn alone (no unit boundary before the latest user message)"
              : "nothing to summarize: no unit boundary before the latest user message fits the requested ratio";
    return plan;
  }
  const placeholder = new HumanMessage({ id: "planned-summary", content: "(summary)" });
  plan.problems = validateHistory([...system, placeholder, ...keep]);
  if (plan.problems.length > 0) {
    plan.reason = `the planned history would be rejected by a provider: ${plan.problems[0]!.message}`;
    return plan;
  }
  plan.executable = true;
  plan.reason = `summarize ${summarize.length} of ${body.length} messages (${plan.units.summarized} of ${units.length} units${previousSummary ? ", folding in the previous summary" : ""}); keep ${keep.length} verbatim${pinnedUnits.length > 0 ? ` (${pinnedUnits.length} pinned unit(s) moved after the summary)` : ""}`;
  return plan;
}

function chooseCut(
  boundaries: number[],
  bodyLength: number,
  ratio: number,
  keepTokens: number | undefined,
  keepMessages: number | undefined,
  tokensBetween: (from: number, to: number) => number,
): number {
  if (boundaries.length === 0) return 0;
  if (keepTokens === undefined && keepMessages !== undefined) {
    // The latest boundary that keeps at least keepMessages; none when every boundary keeps fewer (nothing to cut).
    let cut = 0;
    for (const boundary of boundaries) if (bodyLength - boundary >= keepMessages) cut = boundary;
    return cut;
  }
  if (keepTokens !== undefined) {
    // The earliest boundary whose tail fits in keepTokens; the latest boundary if none does.
    for (const boundary of boundaries) {
      if (tokensBetween(boundary, bodyLength) <= keepTokens) return boundary;
    }
    return boundaries.at(-1)!;
  }
  const target = ratio * bodyLength;
  let best = boundaries[0]!;
  for (const boundary of boundaries) {
    if (Math.abs(boundary - target) < Math.abs(best - target)) best = boundary;
  }
  return best;
}
