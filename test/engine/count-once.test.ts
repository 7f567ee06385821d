/**
 * A compaction counts the thread twice, in every runtime: the head it read (in the wrapper and the middleware, the
 * count the turn or the call makes to decide), and the head it wrote. The plan, the fit under the ceiling, the
 * report's figures, `rewrittenTokens`, a rebase onto a grown head and the count after the model call reuse those
 * counts. Counted here as the passes over a list of messages that the token counter makes (each message in a pass
 * answered from its cache or encoded); what a turn appended since is counted on its own, never with the head.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { HumanMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { describe, expect, it, vi } from "vitest";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { managerWithCounter } from "../support/manager-with-counter.js";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { compactionMiddleware } from "../../src/runtimes/in-graph/compaction-middleware.js";
import { isSummaryMessage } from "../../src/messages/summary-message.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";
import { lookupPolicy } from "../support/agents.js";
import { createTestAgent, seedTurns } from "../support/agents.js";

/** A TokenCounter that notes the length of every list it counts, and every message counted on its own. */
class PassCountingCounter extends TokenCounter {
  passes: number[] = [];
  single = 0;
  override countEach(messages: readonly BaseMessage[]): number[] {
    this.passes.push(messages.length);
    return super.countEach(messages);
  }
  override countMessages(...args: Parameters<TokenCounter["countMessages"]>): number {
    this.passes.push(args[0].length);
    return super.countMessages(...args);
  }
  override countMessagesFrom(messages: readonly BaseMessage[], from: number): { total: number; after: number } {
    this.passes.push(messages.length);
    return super.countMessagesFrom(messages, from);
  }
  override countMessage(message: BaseMessage): number {
    this.single++;
    return super.countMessage(message);
  }
}

describe("counting once per decision", () => {
  it("HistoryManager.compactThread counts the head read and the head written, once each", async () => {
    const saver = SqliteSaver.fromConnString(":memory:");
    await seedTurns(createTestAgent(saver).agent, "t", 30);
    const counter = new PassCountingCounter();
    const manager = managerWithCounter(saver, counter, { trigger: { tokens: 1_500 }, env: {} });
    counter.passes = [];
    counter.single = 0;
    const report = await manager.compactThread({ configurable: { thread_id: "t" } });
    if (report.status !== "compacted") throw new Error(report.reason);
    expect(counter.passes).toEqual([report.messagesBefore, report.messagesAfter]);
    expect(counter.single).toBe(0);
    expect(report.rewrittenTokens).toBeGreaterThan(0);
  });

  it("the wrapper's compaction adds the head written to the count its turn makes to decide", async () => {
    const saver = SqliteSaver.fromConnString(":memory:");
    // The wrapper builds its own counter: its passes are seen on the class.
    const lists = [
      vi.spyOn(TokenCounter.prototype, "countEach"),
      vi.spyOn(TokenCounter.prototype, "countMessages"),
      vi.spyOn(TokenCounter.prototype, "countMessagesFrom"),
    ];
    const passes = () =>
      lists.flatMap((spy) => spy.mock.calls.map(([messages]) => messages.length)).filter((length) => length > 1);
    const seen: Array<{ passes: number[]; before: number; after: number }> = [];
    const supervisor = new CompactingSupervisor(createTestAgent(saver).agent, {
      trigger: { tokens: 1_500 },
      env: {},
      onCompaction: (report) =>
        void (
          report.status === "compacted" &&
          seen.push({ passes: passes(), before: report.messagesBefore, after: report.messagesAfter })
        ),
    });
    try {
      for (let turn = 0; seen.length === 0 && turn < 60; turn++) {
        for (const spy of lists) spy.mockClear();
        await supervisor.invoke(
          {
            messages: [
              new HumanMessage({
                id: `ask-${turn}`,
                content: `Question ${turn}: the refund for vendor ${turn}, and the ledger's total?`,
              }),
            ],
          },
          { configurable: { thread_id: "w" } },
        );
        await supervisor.flush();
      }
    } finally {
      await supervisor.close();
      for (const spy of lists) spy.mockRestore();
    }
    expect(seen).toHaveLength(1);
    // The turn's decision (which the summary's read reuses), the head written.
    expect(seen[0]!.passes.sort((a, b) => b - a)).toEqual([seen[0]!.before, seen[0]!.after]);
  });

  for (const background of [false, true])
    it(`the middleware's compaction (background: ${background}): the call's count and the head written, nothing after`, async () => {
      const lists = [
        vi.spyOn(TokenCounter.prototype, "countEach"),
        vi.spyOn(TokenCounter.prototype, "countMessages"),
        vi.spyOn(TokenCounter.prototype, "countMessagesFrom"),
      ];
      // Passes over a thread from its start (what a turn appended is counted on its own).
      const passes = () =>
        lists.flatMap((spy) =>
          spy.mock.calls
            .map(([messages]) => messages)
            .filter((messages) => messages.length > 1 && (messages[0]!.id === "ask-0" || isSummaryMessage(messages[0])))
            .map((messages) => messages.length),
        );
      const landed: Array<{ passes: number[]; before: number; written: number }> = [];
      const agent = createAgent({
        model: new ScriptedChatModel({ reply: lookupPolicy }),
        tools: [],
        checkpointer: new MemorySaver(),
        middleware: [
          compactionMiddleware({
            trigger: { tokens: 1_500 },
            background,
            env: {},
            onCompaction: (event) =>
              void landed.push({
                passes: passes(),
                before: event.messagesBefore,
                // The summary's result; a rebase appends what the turns added since it was computed, counted apart.
                written: event.messagesAfter - event.appended,
              }),
          }),
        ],
      });
      try {
        for (let turn = 0; landed.length < 2 && turn < 80; turn++) {
          for (const spy of lists) spy.mockClear();
          await agent.invoke(
            {
              messages: [
                new HumanMessage({
                  id: `ask-${turn}`,
                  content: `Question ${turn}: the refund for vendor ${turn}, and the ledger's total?`,
                }),
              ],
            },
            { configurable: { thread_id: "m" } },
          );
        }
      } finally {
        for (const spy of lists) spy.mockRestore();
      }
      expect(landed.length).toBe(2);
      // In the call that lands it: its count before the model call, the head written; `after` reuses the latter.
      for (const { passes: counted, before, written } of landed)
        expect(counted.sort((a, b) => b - a)).toEqual([before, written]);
    });
});
