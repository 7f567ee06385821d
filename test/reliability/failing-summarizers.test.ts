/**
 * Faults injected into the summarizer on a real agent thread in a SQLite file: throws, hangs past the timeout,
 * returns empty, a huge text, an error string, a tool call instead of text. Each time the user's turn result is
 * the bare graph's, nothing is written, onCompactionError fires; repeated failures pause compaction for the thread
 * (circuit breaker) and say so; `fallbackSummarizer: "extractive"` writes an extractive summary instead.
 */
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PAUSE_MS } from "../../src/engine/circuit-breaker.js";
import {
  auditThread,
  CompactingSupervisor,
  CompactionError,
  LlmSummarizer,
  type CompactionReport,
  type Summarizer,
} from "../../src/index.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";
import { createTestAgent } from "../support/agents.js";
import { recordFigures, size } from "../support/reliability.js";
import { compacted } from "../support/compacted.js";

const TURNS_PER_FAULT = size("FAULT_TURNS", 3, 12);

/** A summarizer that fails the way `fault` says, counting its calls. */
function faulty(fault: string): Summarizer & { calls: number } {
  const toolCaller = new ScriptedChatModel({
    reply: () => ({ toolCalls: [{ name: "search_orders", args: { query: "x" } }] }),
  });
  const llm = new LlmSummarizer({ model: toolCaller });
  return {
    name: `faulty-${fault}`,
    // A summary slower than this is abandoned ("hangs" never answers).
    timeoutMs: 300,
    calls: 0,
    async summarize(input) {
      this.calls++;
      switch (fault) {
        case "throws":
          throw new Error("upstream 503");
        case "hangs":
          return new Promise<string>(() => undefined);
        case "empty":
          return "   ";
        case "huge":
          return "blah ".repeat(400_000);
        case "error string":
          return "Error: rate limit exceeded, please retry later";
        case "tool call":
          return llm.summarize(input);
        default:
          throw new Error(`unknown fault ${fault}`);
      }
    },
  };
}

const LONG =
  "Please check the billing history for the customer account, compare it to the contract terms, and tell me about any discrepancy in the amounts charged.";

const FAULTS = ["throws", "hangs", "empty", "huge", "error string", "tool call"];

function textsOf(messages: BaseMessage[]): string[] {
  return messages.map((message) => `${message.getType()}:${String(message.content)}`);
}

describe("failing summarizers", () => {
  let dir: string;
  let saver: SqliteSaver;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "compaction-faults-"));
    saver = SqliteSaver.fromConnString(join(dir, "threads.sqlite"));
  });
  afterEach(() => {
    saver.db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(FAULTS)("%s: the turn is unaffected, nothing is written, onCompactionError fires", async (fault) => {
    const summarizer = faulty(fault);
    const errors: unknown[] = [];
    const reports: CompactionReport[] = [];
    const { agent } = createTestAgent(saver);
    const supervisor = new CompactingSupervisor(agent, {
      trigger: { tokens: 250 },
      summarizer,
      background: false,
      onCompaction: (report) => void (report.status === "compacted" && reports.push(report)),
      onCompactionError: (error) => void errors.push(error),
    });
    const { agent: bare } = createTestAgent(new MemorySaver());
    const config = { configurable: { thread_id: `fault-${fault}` } };
    for (let turn = 0; turn < TURNS_PER_FAULT + 4; turn++) {
      const input = {
        messages: [
          new HumanMessage({
            id: `u${turn}`,
            content: `turn ${turn}: ${turn % 3 === 2 ? "lookup order-" + turn : `${LONG} The invoice for ord_${turn} is 42 EUR`}`,
          }),
        ],
      };
      const wrapped = await supervisor.invoke(input, config);
      const plain = await bare.invoke(input, config);
      expect(textsOf(wrapped.messages)).toEqual(textsOf(plain.messages));
      // Every turn tries again: the circuit breaker's pause (tested below) lifted.
      supervisor.resumeCompaction(config.configurable.thread_id);
    }
    expect(summarizer.calls).toBeGreaterThanOrEqual(TURNS_PER_FAULT);
    expect(reports).toEqual([]);
    const failures = errors.filter((error) => (error as { code?: string }).code !== "COMPACTION_PAUSED");
    expect(failures).toHaveLength(summarizer.calls);
    for (const error of failures) expect(error).toMatchObject({ code: "SUMMARIZER_FAILED" });
    // Nothing written: no checkpoint of the thread came from a compaction, and nothing was lost.
    for await (const tuple of saver.list(config)) expect(tuple.metadata?.source).not.toBe("update");
    expect((await auditThread(saver, config)).problems).toEqual([]);
    recordFigures("faults", { [`injected:${fault}`]: summarizer.calls });
  });

  it("pauses compaction for a thread after repeated failures, says so once, and resumes after the pause", async () => {
    let broken = true;
    const summarizer: Summarizer & { calls: number } = {
      name: "flaky",
      calls: 0,
      async summarize() {
        this.calls++;
        if (broken) throw new Error("provider down");
        return "The user asked about invoices; the agent answered each.";
      },
    };
    // The breaker's time: the clock set past the pause by hand, never slept through.
    vi.useFakeTimers({ toFake: ["Date"], now: 1_000_000 });
    const errors: Array<{ code?: string; message: string }> = [];
    const reports: CompactionReport[] = [];
    const { agent } = createTestAgent(saver);
    const supervisor = new CompactingSupervisor(agent, {
      trigger: { tokens: 250 },
      summarizer,
      background: false,
      onCompaction: (report) => void (report.status === "compacted" && reports.push(report)),
      onCompactionError: (error) => void errors.push(error as CompactionError),
    });
    const config = { configurable: { thread_id: "breaker" } };
    const turn = (index: number) =>
      supervisor.invoke(
        { messages: [new HumanMessage(`turn ${index}: ${LONG} The invoice ord_${index} is ${index} EUR.`)] },
        config,
      );
    for (let index = 0; index < 7; index++) await turn(index);
    expect(summarizer.calls).toBe(3);
    expect(errors.map((error) => error.code)).toEqual([
      "SUMMARIZER_FAILED",
      "SUMMARIZER_FAILED",
      "SUMMARIZER_FAILED",
      "COMPACTION_PAUSED",
    ]);
    expect(errors[3]!.message).toContain('thread "breaker" is paused');
    const health = supervisor.compactionHealth("breaker");
    expect(health.consecutiveFailures).toBe(3);
    expect(health.pausedUntil).toBeInstanceOf(Date);
    // Another thread is not paused by this one's failures.
    expect(supervisor.compactionHealth("other")).toMatchObject({
      consecutiveFailures: 0,
      turnsOverLimit: 0,
      summary: "none",
    });

    // After the pause one attempt goes through; still failing, it pauses again at once.
    vi.setSystemTime(Date.now() + PAUSE_MS + 1);
    await turn(7);
    expect(summarizer.calls).toBe(4);
    expect(errors.at(-1)!.code).toBe("COMPACTION_PAUSED");

    // Fixed: resumeCompaction lifts the pause; the next turn compacts and the breaker closes.
    broken = false;
    supervisor.resumeCompaction("breaker");
    await turn(8);
    expect(reports).toHaveLength(1);
    expect(supervisor.compactionHealth("breaker")).toMatchObject({
      consecutiveFailures: 0,
      turnsOverLimit: 0,
      summary: "none",
    });
    expect((await auditThread(saver, config)).problems).toEqual([]);
    vi.useRealTimers();
    recordFigures("faults", { "injected:circuit breaker": 4 });
  });

  it("falls back to the extractive summarizer when asked, and says which one wrote the summary", async () => {
    const summarizer = faulty("throws");
    const reports: CompactionReport[] = [];
    const { agent } = createTestAgent(saver);
    const supervisor = new CompactingSupervisor(agent, {
      trigger: { tokens: 250 },
      summarizer,
      fallbackSummarizer: "extractive",
      background: false,
      onCompaction: (report) => void (report.status === "compacted" && reports.push(report)),
    });
    const config = { configurable: { thread_id: "fallback" } };
    for (let index = 0; index < 6; index++)
      await supervisor.invoke(
        { messages: [new HumanMessage(`turn ${index}: ${LONG} The invoice ord_${index} is ${index} EUR.`)] },
        config,
      );
    expect(reports.length).toBeGreaterThan(0);
    expect(reports[0]).toMatchObject({ status: "compacted", summarizer: "extractive" });
    expect(compacted(reports[0]).fallbackReason).toContain("upstream 503");
    const state = await supervisor.getState(config);
    const summary = state.values.messages.find((message: BaseMessage) => message.additional_kwargs?.compaction);
    expect(summary.additional_kwargs.compaction).toMatchObject({ summarizer: "extractive" });
    expect((await auditThread(saver, config)).problems).toEqual([]);
    recordFigures("faults", { "injected:fallback": summarizer.calls });
  });
});
