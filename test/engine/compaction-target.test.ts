/**
 * `compactionTarget`, the low-water mark, takes effect below the summary's default share: the summary's budget shrinks
 * with it (0.75 of the target), so a lower target ends a compaction lower. It once ended every target under 0.6 at
 * the same place (the summary alone filled it).
 */
import { MemorySaver } from "@langchain/langgraph-checkpoint";
import { expect, it } from "vitest";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { resolvePolicy } from "../../src/engine/policy.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { turnMessages } from "../support/agents.js";

const LIMIT = 1_500;
const counter = new TokenCounter();

it("a lower compactionTarget ends a compaction lower, each under its target's ceiling", async () => {
  let messages = turnMessages("target", 6);
  for (let turns = 6; counter.countMessages(messages) <= LIMIT * 1.2; turns++) messages = turnMessages("target", turns);
  const ended: number[] = [];
  for (const compactionTarget of [0.4, 0.5, 0.6, 0.8]) {
    const manager = new HistoryManager({
      checkpointer: new MemorySaver(),
      tokenLimit: LIMIT,
      compactionTarget,
      summarizer: new ExtractiveSummarizer({ counter }),
      counter,
      env: {},
    });
    const compacted = await manager.compactWithinPolicy(messages);
    if ("skipped" in compacted) throw new Error(compacted.skipped);
    ended.push(counter.countMessages(compacted.messages));
  }
  expect(ended[0]).toBeLessThan(ended[2]!);
  expect(ended[1]).toBeLessThanOrEqual(ended[2]!);
  expect(ended[2]).toBeLessThanOrEqual(ended[3]!);
});

it("the summary's default budget follows the target under 0.8, and stays 60% of the limit at and above it", () => {
  expect(resolvePolicy({ tokenLimit: LIMIT, compactionTarget: 0.4 }).summaryTokens).toBe(450);
  expect(resolvePolicy({ tokenLimit: LIMIT }).summaryTokens).toBe(900);
  expect(resolvePolicy({ tokenLimit: LIMIT, compactionTarget: 0.9 }).summaryTokens).toBe(900);
  // A budget given is the budget.
  expect(resolvePolicy({ tokenLimit: LIMIT, compactionTarget: 0.4, summaryTokens: 700 }).summaryTokens).toBe(700);
});
