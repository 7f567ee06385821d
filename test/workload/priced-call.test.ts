/**
 * The cost benchmark's pricing of a call (scripts/bench/cost): what a rewrite costs, and the bound it prints beside
 * the defaults — the same calls priced as if no compaction had broken the cache, so only what a call appends is new —
 * and a summarizer's own calls, priced on top.
 * Hand-computed from the tokenizer's count of each message.
 */
import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { appendedTokens, pricedCall } from "../../scripts/bench/cost/priced-call.js";
import { PRICE_SHEETS, priceCalls, priceSummarizer } from "../../scripts/bench/cost/pricing.js";
import { REPLY_PRIMING_TOKENS } from "../../src/tokens/chat-format.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";

const counter = new TokenCounter({ model: "gpt-4o" });
const tokensOf = (messages: readonly BaseMessage[]) =>
  messages.reduce((sum, message) => sum + counter.countMessages([message]) - REPLY_PRIMING_TOKENS, 0);
const system = new SystemMessage({ id: "s", content: "You are the billing assistant. ".repeat(200) });
const turn = (n: number): BaseMessage[] => [
  new HumanMessage({
    id: `q${n}`,
    content: `What is the total of invoice INV-${n}? Give the line items and the approver. `.repeat(8),
  }),
  new AIMessage({
    id: `a${n}`,
    content: `Invoice INV-${n} totals ${n * 40} EUR, approved by Alice Moreau on the third of the month. `.repeat(8),
  }),
];
const anthropic = PRICE_SHEETS[0]!;

describe("the cost benchmark's pricing", () => {
  const before = [system, ...turn(0), ...turn(1), ...turn(2), ...turn(3)];
  const summary = new HumanMessage({ id: "summary", content: "Summary: invoices 0 to 2 approved by Alice Moreau." });
  // A compaction: the summary replaces turns 0–2, turn 3 is kept, and the call appends turn 4's question.
  const after = [system, summary, ...turn(3), turn(4)[0]!];

  it("a call after a compaction appends only what no call sent before: its new question", () => {
    expect(appendedTokens(before, after, counter)).toBe(tokensOf([turn(4)[0]!]) + REPLY_PRIMING_TOKENS);
    const call = pricedCall({ messages: before }, { messages: after }, { counter, output: 10, gapMinutes: 1 });
    expect(call).toEqual({
      cached: tokensOf([system]),
      fresh: tokensOf(after.slice(1)) + REPLY_PRIMING_TOKENS,
      appended: tokensOf([turn(4)[0]!]) + REPLY_PRIMING_TOKENS,
      output: 10,
      gapMinutes: 1,
      rewrite: true,
    });
  });

  it("a call that appends has nothing to save: appended is its fresh input", () => {
    const next = [...after, turn(4)[1]!, ...turn(5)];
    const call = pricedCall({ messages: after }, { messages: next }, { counter, output: 0, gapMinutes: 1 });
    expect(call.rewrite).toBe(false);
    expect(call.appended).toBe(call.fresh);
    expect(call.fresh).toBe(tokensOf([turn(4)[1]!, ...turn(5)]) + REPLY_PRIMING_TOKENS);
  });

  it("priced unbroken, the rewrite reads the rest of its input from a warm cache; a cold one is written in full either way", () => {
    const warm = pricedCall({ messages: before }, { messages: after }, { counter, output: 0, gapMinutes: 1 });
    const total = warm.cached + warm.fresh;
    expect(warm.cached).toBeGreaterThanOrEqual(anthropic.minimumTokens);
    expect(priceCalls([warm], anthropic).cost).toBeCloseTo(warm.cached * 0.1 + warm.fresh * 1.25);
    expect(priceCalls([warm], anthropic, { unbroken: true }).cost).toBeCloseTo(
      (total - warm.appended) * 0.1 + warm.appended * 1.25,
    );
    const cold = { ...warm, gapMinutes: Number.POSITIVE_INFINITY };
    expect(priceCalls([cold], anthropic, { unbroken: true }).cost).toBeCloseTo(total * 1.25);
  });

  it("a summarizer's own calls are priced on top: what the provider read from its cache at the read price, the rest written", () => {
    expect(priceSummarizer(undefined, anthropic)).toBe(0);
    expect(priceSummarizer({ input: 2_000, output: 300, cachedInput: 1_500, calls: 2 }, anthropic)).toBeCloseTo(
      1_500 * 0.1 + 500 * 1.25 + 300 * 5,
    );
    expect(priceSummarizer({ input: 2_000, output: 300, cachedInput: 0, calls: 1 }, PRICE_SHEETS[1]!)).toBeCloseTo(
      2_000 * 1 + 300 * 4,
    );
  });
});
