/**
 * The limit the script uses for one thread: --limit (or --over), else TOKEN_LIMIT, else the one the thread's last
 * compaction recorded with its summary, else the script's default (4,000), which the output says is not the thread's.
 */
import { COMPACTION_OPTIONS } from "../engine/options.js";
import type { CompactionPolicy } from "../engine/policy.js";
import { resolveSettings } from "../engine/settings.js";
import { getSummaryProvenance } from "../messages/summary-message.js";
import type { ThreadHead } from "../store/read-head.js";
import type { CliContext } from "./context.js";

/**
 * The context for one thread: given no limit (no --limit, --over or TOKEN_LIMIT), the limit recorded by the thread's
 * last compaction (its summary's provenance) when there is one, so every command answers with the thread's own
 * limit; else the context as it is.
 */
export function threadContext(context: CliContext, head: ThreadHead): CliContext {
  if (context.limitSource !== "default") return context;
  const recorded = head.messages.map((message) => getSummaryProvenance(message)?.limit).find(Boolean);
  if (recorded === undefined || recorded === context.limit) return context;
  const compaction = { ...context.compaction, trigger: { tokens: recorded } };
  const settings = resolveSettings("compact-thread", COMPACTION_OPTIONS, compaction, {});
  const policy = settings.policy as CompactionPolicy & { tokenLimit: number };
  const { counter, calibration, summarizer } = settings;
  return {
    ...context,
    compaction,
    settings,
    counter,
    calibration,
    summarizer,
    policy,
    limit: policy.tokenLimit,
    limitSource: "recorded",
  };
}

/** The limit in words: its figure, and where it comes from unless the user gave it. */
export function limitText(context: CliContext): string {
  const figure = context.limit.toLocaleString("en-US");
  return context.limitSource === "flag" || context.limitSource === "environment"
    ? figure
    : `${figure} (${limitNote(context)})`;
}

/** How the limit was chosen, for a line that shows it. */
export function limitNote(context: CliContext): string {
  return context.limitSource === "recorded"
    ? "recorded by the thread's last compaction"
    : context.limitSource === "default"
      ? "the script's default: pass --limit with the thread's own trigger"
      : context.limitSource === "flag"
        ? "--limit"
        : "TOKEN_LIMIT";
}
