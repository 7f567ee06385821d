import { HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { generateHistory } from "../../scripts/workload/history.js";

describe("ExtractiveSummarizer", () => {
  const counter = new TokenCounter();
  const summarizer = new ExtractiveSummarizer({ counter });
  const history = generateHistory({ seed: 3, messages: 120 }).slice(1);
  const planted = new HumanMessage({
    id: "fact",
    content: "Decision: the launch date is 2026-05-04 and Farid Haddad approved a budget of 73,250 EUR.",
  });
  const segment = [...history.slice(0, 60), planted, ...history.slice(60)];

  it("is deterministic and stays within its token budget", async () => {
    const first = await summarizer.summarize({ messages: segment, tokenBudget: 400 });
    const second = await summarizer.summarize({ messages: segment, tokenBudget: 400 });
    expect(first).toBe(second);
    expect(counter.countText(first)).toBeLessThanOrEqual(400);
  });

  it("keeps dense facts: names, numbers, dates and decisions", async () => {
    const summary = await summarizer.summarize({ messages: segment, tokenBudget: 400 });
    expect(summary).toContain("2026-05-04");
    expect(summary).toContain("73,250 EUR");
    const without = await summarizer.summarize({
      messages: segment.filter((message) => message !== planted),
      tokenBudget: 400,
    });
    expect(without).not.toContain("73,250");
  });

  it("folds the previous summary in, so facts survive repeated compactions", async () => {
    const first = await summarizer.summarize({ messages: segment, tokenBudget: 400 });
    let running = first;
    for (let round = 0; round < 4; round++) {
      const next = generateHistory({ seed: 100 + round, messages: 80 }).slice(1);
      running = await summarizer.summarize({ previousSummary: running, messages: next, tokenBudget: 400 });
    }
    expect(running).toContain("73,250 EUR");
    expect(counter.countText(running)).toBeLessThanOrEqual(400);
  });
});
