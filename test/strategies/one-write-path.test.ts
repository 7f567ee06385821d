/**
 * One write path: a strategy only transforms messages; the engine summarizes and writes. A strategy run through the
 * wrapper honours `summaryRole`, `summaryTimeoutMs` and `fallbackSummarizer` as the default policy does, makes the
 * same cut, and its write follows the engine's rules (ceiling, busy head, compare-and-swap, rebase onto turns that
 * landed meanwhile, conflict when its snapshot changed).
 */
import { HumanMessage, RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { CompactionError } from "../../src/errors.js";
import { getSummaryProvenance, isSummaryMessage } from "../../src/messages/summary-message.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { createStrategy } from "../../src/strategies/registry.js";
import type { Summarizer } from "../../src/summarizers/types.js";
import { createTestAgent, runTurns } from "../support/agents.js";
import { createStore, type TestStore } from "../support/savers.js";

const LIMIT = 900;

const failing: Summarizer = {
  name: "failing",
  summarize: async () => Promise.reject(new Error("the provider is down")),
};
const hanging: Summarizer = { name: "hanging", timeoutMs: 50, summarize: () => new Promise<string>(() => undefined) };

describe("a strategy writes through the engine", () => {
  let store: TestStore;
  beforeEach(async () => void (store = await createStore("sqlite")));
  afterEach(async () => await store.close());

  async function compactedHead(
    thread: string,
    options: Partial<ConstructorParameters<typeof CompactingSupervisor>[1]>,
  ): Promise<BaseMessage[]> {
    const { agent } = createTestAgent(store.saver);
    const supervisor = new CompactingSupervisor(agent, {
      trigger: { tokens: LIMIT },
      background: false,
      env: {},
      ...options,
    });
    await runTurns(supervisor as unknown as Parameters<typeof runTurns>[0], thread, 20);
    await supervisor.close();
    return (await supervisor.getState({ configurable: { thread_id: thread } })).values.messages as BaseMessage[];
  }

  it("strategy 'summarize': the same kept messages and the same summary as the default path", async () => {
    const viaDefault = await compactedHead("default", {});
    const viaStrategy = await compactedHead("strategy", { strategy: createStrategy("summarize") });
    for (const head of [viaDefault, viaStrategy]) {
      const summary = head.find((message) => isSummaryMessage(message));
      expect(summary).toBeDefined();
      expect(HumanMessage.isInstance(summary)).toBe(true);
    }
    // The threads' ids differ by thread name: the same messages are the same role and text.
    const kept = (head: BaseMessage[]) =>
      head.filter((message) => !isSummaryMessage(message)).map((message) => `${message.getType()}: ${message.text}`);
    expect(kept(viaStrategy)).toEqual(kept(viaDefault));
  });

  it("strategy 'summarize' falls back to fallbackSummarizer as the default path does, and says so", async () => {
    const outcomes: string[] = [];
    const head = await compactedHead("fallback", {
      strategy: createStrategy("summarize"),
      summarizer: failing,
      fallbackSummarizer: "extractive",
      onCompaction: (report) => void (report.status === "compacted" && outcomes.push(report.fallbackReason ?? "none")),
    });
    const provenance = getSummaryProvenance(head.find((message) => isSummaryMessage(message)));
    expect(provenance?.summarizer).toBe("extractive");
    expect(provenance?.fallbackReason).toMatch(/provider is down/);
    expect(outcomes.length).toBeGreaterThan(0);
    expect(outcomes[0]).toMatch(/provider is down/);
  });

  it("strategy 'summarize' abandons a summary slower than its summarizer's timeoutMs and writes nothing", async () => {
    const errors: unknown[] = [];
    const head = await compactedHead("timeout", {
      strategy: createStrategy("summarize"),
      summarizer: hanging,
      onCompactionError: (error) => void errors.push(error),
    });
    expect(head.some((message) => isSummaryMessage(message))).toBe(false);
    expect(errors.length).toBeGreaterThan(0);
    expect(CompactionError.isInstance(errors[0]) && errors[0].code).toBe("SUMMARIZER_FAILED");
  });
});

describe("HistoryManager.applyEdit: a strategy's result, written by the engine's rules", () => {
  let store: TestStore;
  beforeEach(async () => void (store = await createStore("sqlite")));
  afterEach(async () => await store.close());

  it("rebases onto turns that landed after the snapshot, conflicts when the snapshot changed, and never writes an edit that does not shrink the thread", async () => {
    const { agent } = createTestAgent(store.saver);
    await runTurns(agent, "edit", 6);
    const manager = new HistoryManager({ checkpointer: store.saver, trigger: { tokens: 5_000 }, env: {} });
    const snapshot = (await manager.store.readHead("edit"))!;
    const edited = snapshot.messages.slice(2);
    // Two turns land while the edit is computed: carried over, verbatim.
    await runTurns(agent, "edit", 2, { from: 6 });
    const grown = (await manager.store.readHead("edit"))!.messages;
    const written = await manager.applyEdit("edit", snapshot, edited);
    expect(written.status).toBe("written");
    const head = (await manager.store.readHead("edit"))!.messages;
    expect(head.map((message) => message.id)).toEqual(
      [...edited, ...grown.slice(snapshot.messages.length)].map((message) => message.id),
    );

    // The same (now stale) snapshot again: its messages are no longer the start of the head.
    expect((await manager.applyEdit("edit", snapshot, edited)).status).toBe("conflict");

    // An edit that saves nothing: not written.
    const current = (await manager.store.readHead("edit"))!;
    const outcome = await manager.applyEdit("edit", current, current.messages);
    expect(outcome).toMatchObject({ status: "skipped", code: "NOTHING_TO_SUMMARIZE" });
    expect((await manager.store.readHead("edit"))!.tuple.checkpoint.id).toBe(current.tuple.checkpoint.id);
  });

  it("an edit of a message the head still holds is written; a removal by the application meanwhile is a conflict", async () => {
    const { agent } = createTestAgent(store.saver);
    await runTurns(agent, "removed", 4);
    const manager = new HistoryManager({ checkpointer: store.saver, trigger: { tokens: 5_000 }, env: {} });
    const snapshot = (await manager.store.readHead("removed"))!;
    await agent.updateState(
      { configurable: { thread_id: "removed" } },
      { messages: [new RemoveMessage({ id: snapshot.messages[1]!.id! })] },
    );
    expect(
      (await manager.applyEdit("removed", snapshot, [new HumanMessage({ id: "only", content: "one" })])).status,
    ).toBe("conflict");
  });
});
