/**
 * A pipeline of strategies: each step runs only while the history is still over the budget, so cheap edits go
 * first and a summary is made only if they were not enough (the way Claude Code clears old tool results before a
 * full compaction).
 */
import type { BaseMessage } from "@langchain/core/messages";
import { argument } from "../options/check.js";
import { listOf, withMethods } from "../options/rules.js";

const STEPS_RULE = "a non-empty array of strategies (createStrategy(name))";
const STEPS = listOf(withMethods(["apply"], STEPS_RULE), STEPS_RULE, { min: 1 });
import { sharedCounter } from "../tokens/shared-counter.js";
import type { Strategy, StrategyContext, StrategyReport, StrategyResult, ThreadStrategy } from "./types.js";
import { threadStrategy } from "./strategy-compaction.js";

export function createPipeline(steps: readonly Strategy[]): ThreadStrategy {
  argument("steps", steps, STEPS);
  const name = steps.map((step) => step.name).join(" → ");
  return threadStrategy({
    name,
    description: `each step while still over the budget: ${name}`,
    async apply(messages: readonly BaseMessage[], context: StrategyContext): Promise<StrategyResult> {
      const counter = context.counter ?? sharedCounter();
      let current = [...messages];
      const before = counter.countMessages(current);
      let tokens = before;
      const reports: StrategyReport[] = [];
      for (const step of steps) {
        if (tokens <= context.budget) break;
        const result = await step.apply(current, { ...context, counter });
        reports.push(result.report);
        current = result.messages;
        tokens = result.report.tokensAfter;
      }
      return {
        messages: current,
        report: {
          strategy: name,
          tokensBefore: before,
          tokensAfter: tokens,
          changed: reports.reduce((sum, report) => sum + report.changed, 0),
          note:
            reports.length === 0
              ? `under the budget (${before} <= ${context.budget} tokens)`
              : reports.map((report) => `${report.strategy}: ${report.note}`).join("; "),
          steps: reports,
        },
      };
    },
  });
}
