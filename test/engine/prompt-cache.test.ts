/**
 * The prompt cache's share of a call (engine/prompt-cache.ts) against hand-computed cases: a call that appends, a
 * rewrite in the middle, a summary replaced, a tool result cleared, other tools, a cold cache. Each expected figure is
 * the tokenizer's count of the messages the case says are shared, computed here message by message.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { cacheSplit, rewrittenTokens, sharedMessages } from "../../src/engine/prompt-cache.js";
import { REPLY_PRIMING_TOKENS } from "../../src/tokens/chat-format.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";

const counter = new TokenCounter({ model: "gpt-4o" });
/** The tokens of `messages` as parts of a call (without the reply priming at its end). */
const tokensOf = (messages: readonly BaseMessage[]) =>
  messages.reduce((sum, message) => sum + counter.countMessages([message]) - REPLY_PRIMING_TOKENS, 0);

const system = new SystemMessage({ id: "s", content: "You are the billing assistant." });
const turn = (n: number): BaseMessage[] => [
  new HumanMessage({ id: `q${n}`, content: `What is the total of invoice INV-${n}?` }),
  new AIMessage({ id: `a${n}`, content: `Invoice INV-${n} totals ${n * 40} EUR, approved by Alice Moreau.` }),
];
const thread = (turns: number) => [system, ...Array.from({ length: turns }, (_, n) => turn(n)).flat()];

describe("cacheSplit", () => {
  it("a call that appends reads everything the previous one sent from the cache", () => {
    const previous = thread(3);
    const current = [...previous, ...turn(3)];
    const split = cacheSplit({ messages: previous }, { messages: current }, counter);
    expect(split).toEqual({
      cached: tokensOf(previous),
      fresh: tokensOf(turn(3)) + REPLY_PRIMING_TOKENS,
      sharedMessages: previous.length,
    });
    expect(split.cached + split.fresh).toBe(counter.countMessages(current));
  });

  it("a rewrite in the middle: the cache serves up to the rewritten message, and everything after it is new", () => {
    const previous = thread(4);
    const current = [...previous];
    current[3] = new HumanMessage({ id: "q1", content: "What is the total of invoice INV-1, in dollars?" });
    const split = cacheSplit({ messages: previous }, { messages: current }, counter);
    expect(split.sharedMessages).toBe(3);
    expect(split.cached).toBe(tokensOf(current.slice(0, 3)));
    expect(split.fresh).toBe(tokensOf(current.slice(3)) + REPLY_PRIMING_TOKENS);
  });

  it("a compaction that replaces the summary: the system prompt stays cached, the rest is written again", () => {
    const summary = (text: string, id: string) =>
      new HumanMessage({ id, content: `Summary of the earlier conversation: ${text}` });
    const previous = [system, summary("invoices 0 to 3 approved.", "summary-1"), ...turn(4), ...turn(5)];
    const current = [system, summary("invoices 0 to 5 approved.", "summary-2"), ...turn(6)];
    const split = cacheSplit({ messages: previous }, { messages: current }, counter);
    expect(split).toEqual({
      cached: tokensOf([system]),
      fresh: tokensOf(current.slice(1)) + REPLY_PRIMING_TOKENS,
      sharedMessages: 1,
    });
  });

  it("a summary log grown by a block: its earlier blocks stay cached, the new block and what follows are new", () => {
    const block = (text: string) => ({ type: "text" as const, text });
    const earlier = [
      block("Summary:\nInvoices INV-0 to INV-3 approved by Alice Moreau."),
      block("\n\nINV-4 rejected."),
    ];
    const log = (id: string, blocks: ReturnType<typeof block>[]) => new HumanMessage({ id, content: blocks });
    const previous = [system, log("summary-1", earlier), ...turn(5), ...turn(6)];
    const current = [system, log("summary-2", [...earlier, block("\n\nINV-5 and INV-6 paid.")]), ...turn(6)];
    const shared = counter.countText(earlier[0]!.text) + counter.countText(earlier[1]!.text);
    const split = cacheSplit({ messages: previous }, { messages: current }, counter);
    expect(split).toEqual({
      cached: tokensOf([system]) + shared,
      fresh: tokensOf(current.slice(1)) - shared + REPLY_PRIMING_TOKENS,
      sharedMessages: 1,
    });
    expect(rewrittenTokens(previous, current, counter)).toBe(tokensOf(current.slice(1)) - shared);
    // A first block that changed (a reflection rewrote the log) leaves nothing of the message cached; so does a
    // message of another role with the same blocks.
    const rewritten = [system, log("summary-3", [block("Summary:\nInvoices INV-0 to INV-6 settled.")]), ...turn(6)];
    expect(cacheSplit({ messages: current }, { messages: rewritten }, counter).cached).toBe(tokensOf([system]));
    const asSystem = [system, new SystemMessage({ content: [...earlier] }), ...turn(6)];
    expect(cacheSplit({ messages: previous }, { messages: asSystem }, counter).cached).toBe(tokensOf([system]));
  });

  it("a tool result cleared in place breaks the cache from that message on", () => {
    const call = new AIMessage({
      id: "call",
      content: "",
      tool_calls: [{ id: "t1", name: "lookup", args: { invoice: "INV-7" } }],
    });
    const result = (content: string) => new ToolMessage({ id: "result", tool_call_id: "t1", content });
    const previous = [
      system,
      ...turn(0),
      call,
      result("INV-7: 4,200 EUR, owner Dana Okafor, due 2026-03-14, line items: ".repeat(6)),
      ...turn(1),
    ];
    const current = [system, ...turn(0), call, result("[cleared: 84 tokens, recall with search_history]"), ...turn(1)];
    const split = cacheSplit({ messages: previous }, { messages: current }, counter);
    expect(split.sharedMessages).toBe(4);
    expect(split.cached).toBe(tokensOf(current.slice(0, 4)));
    expect(split.fresh).toBe(tokensOf(current.slice(4)) + REPLY_PRIMING_TOKENS);
  });

  it("tools come first: the same tools are cached with the prefix, other tools leave nothing cached", () => {
    const previous = thread(2);
    const current = [...previous, ...turn(2)];
    expect(
      cacheSplit(
        { messages: previous, toolTokens: 120, toolsKey: "lookup" },
        { messages: current, toolTokens: 120, toolsKey: "lookup" },
        counter,
      ).cached,
    ).toBe(120 + tokensOf(previous));
    expect(
      cacheSplit(
        { messages: previous, toolTokens: 120, toolsKey: "lookup" },
        { messages: current, toolTokens: 150, toolsKey: "lookup+search" },
        counter,
      ),
    ).toEqual({ cached: 0, fresh: 150 + counter.countMessages(current), sharedMessages: 0 });
  });

  it("a cold cache (no previous call, or one past the cache's lifetime) serves nothing", () => {
    const current = thread(2);
    expect(cacheSplit(undefined, { messages: current }, counter)).toEqual({
      cached: 0,
      fresh: counter.countMessages(current),
      sharedMessages: 0,
    });
    expect(sharedMessages([], current)).toBe(0);
  });
});

describe("rewrittenTokens", () => {
  it("a compaction breaks the cache from the summary on: the summary and every message kept after it", () => {
    const before = thread(6);
    const summary = new HumanMessage({
      id: "summary-1",
      content: "Summary: invoices INV-0 to INV-3 were approved by Alice Moreau.",
    });
    const after = [system, summary, ...before.slice(9)];
    expect(rewrittenTokens(before, after, counter)).toBe(tokensOf(after.slice(1)));
    // In the provider's tokens: scaled by the thread's ratio.
    expect(rewrittenTokens(before, after, counter, 1.5)).toBe(Math.round(tokensOf(after.slice(1)) * 1.5));
  });

  it("a rewrite that leaves the head as it was breaks nothing; a tool result cleared breaks from it on", () => {
    const before = thread(3);
    expect(rewrittenTokens(before, [...before], counter)).toBe(0);
    const call = new AIMessage({
      id: "c",
      content: "",
      tool_calls: [{ id: "t1", name: "lookup", args: { invoice: "INV-9" } }],
    });
    const result = new ToolMessage({ id: "r", tool_call_id: "t1", content: "INV-9: 360 EUR, approved. ".repeat(20) });
    const withTool = [...before, call, result, ...turn(9)];
    const cleared = [
      ...before,
      call,
      new ToolMessage({ id: "r", tool_call_id: "t1", content: "[cleared]" }),
      ...turn(9),
    ];
    expect(rewrittenTokens(withTool, cleared, counter)).toBe(tokensOf(cleared.slice(before.length + 1)));
  });
});
