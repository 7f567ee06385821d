/**
 * The peers benchmark's generator and retention scorer: deterministic plans, planted facts stated exactly once and
 * spread over the whole conversation, and a scorer that finds a fact when present and misses it when removed.
 */
import { describe, expect, it } from "vitest";
import { validateHistory } from "../../src/internal.js";
import { generateConversation, probeQuestion } from "../../scripts/workload/conversation.js";
import { conversationMessages } from "../../scripts/workload/conversation-messages.js";
import { isRetained, scoreRetention, visibleText } from "../../scripts/workload/retention.js";

describe("generateConversation", () => {
  it("is deterministic per seed and close to the requested size, from 50 to 2,000 messages", () => {
    for (const messages of [50, 200, 2_000]) {
      const plan = generateConversation({ seed: 3, messages });
      expect(generateConversation({ seed: 3, messages })).toEqual(plan);
      expect(plan.messages).toBeGreaterThanOrEqual(messages);
      expect(plan.messages).toBeLessThan(messages + 20);
      const stored = conversationMessages(plan);
      expect(stored).toHaveLength(plan.messages);
      expect(validateHistory(stored)).toEqual([]);
    }
    expect(generateConversation({ seed: 4, messages: 200 })).not.toEqual(
      generateConversation({ seed: 3, messages: 200 }),
    );
  });

  it("has handoffs, parallel tool calls, bulky results and chit-chat", () => {
    const plan = generateConversation({ seed: 5, messages: 500 });
    const replies = plan.turns.flatMap((turn) => turn.replies);
    const calls = replies.flatMap((reply) => ("calls" in reply ? reply.calls : []));
    expect(calls.some((call) => call.name.startsWith("transfer_to_"))).toBe(true);
    expect(replies.some((reply) => "calls" in reply && reply.calls.length > 1)).toBe(true);
    expect(Math.max(...calls.map((call) => call.result.length))).toBeGreaterThan(1_000);
    expect(plan.turns.some((turn) => turn.replies.length === 1 && turn.user.length < 30)).toBe(true);
  });

  it("states every planted fact exactly once, in its turn, with keys no other fact shares, in every quarter", () => {
    const plan = generateConversation({ seed: 6, messages: 1_000 });
    const text = visibleText(conversationMessages(plan));
    expect(plan.facts.length).toBe(Math.floor(1_000 / 12));
    for (const fact of plan.facts) {
      expect(text.split(fact.statement)).toHaveLength(2);
      for (const other of plan.facts) if (other !== fact) expect(isRetained(fact, other.statement)).toBe(false);
      expect(probeQuestion(plan)).toContain(fact.question);
      expect(isRetained(fact, probeQuestion(plan))).toBe(false);
    }
    expect(new Set(plan.facts.map((fact) => fact.carrier))).toEqual(new Set(["user", "tool", "assistant"]));
    const score = scoreRetention(plan, conversationMessages(plan));
    expect(score.byQuarter.every((share) => share === 1)).toBe(true);
  });
});

describe("scoreRetention", () => {
  it("finds a planted fact when present and misses it when its message is removed", () => {
    const plan = generateConversation({ seed: 7, messages: 300 });
    const messages = conversationMessages(plan);
    expect(scoreRetention(plan, messages)).toMatchObject({ share: 1, missed: [] });
    for (const fact of plan.facts.slice(0, 8)) {
      const without = messages.filter((message) => !visibleText([message]).includes(fact.statement));
      expect(without.length).toBe(messages.length - 1);
      const score = scoreRetention(plan, without);
      expect(score.missed).toEqual([fact.id]);
      expect(score.share).toBeCloseTo((plan.facts.length - 1) / plan.facts.length);
    }
  });

  it("counts a fact whose keys survive in a summary, and misses one with a key cut off", () => {
    const plan = generateConversation({ seed: 8, messages: 100 });
    const fact = plan.facts.find((candidate) => candidate.keys.length > 1) ?? plan.facts[0]!;
    expect(scoreRetention(plan, `Summary: ${fact.keys.join(" / ")}`).retained).toEqual([fact.id]);
    expect(
      scoreRetention(plan, `Summary: ${fact.keys.slice(1).join(" ")} ${fact.keys[0]!.slice(0, -1)}`).retained,
    ).toEqual([]);
  });
});
