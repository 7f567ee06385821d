/**
 * A pipeline of strategies: each step runs only while the history is still over the budget, so cheap edits go
 * first and a summary is made only if they were not enough (the way Claude Code clears old tool results before a
 * full compaction).
 */
import type { BaseMessage } from "@langchain/core/messages";
import { invalidArgument } from "../errors.js";
import { sharedCounter } from "../tokens/shared-counter.js";
import type { Strategy, StrategyContext, StrategyReport, StrategyResult } from "./types.js";

export function createPipeline(steps: readonly Strategy[]): Strategy {
  if (!Array.isArray(steps) || steps.length === 0 || steps.some((step) => typeof step?.apply !== "function")) {
    throw invalidArgument("steps", steps, "a non-empty array of strategies (createStrategy(name))");
  }
  const name = steps.map((step) => step.name).join(" → ");
  return {
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
  };
}
