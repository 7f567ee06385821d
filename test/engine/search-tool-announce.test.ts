/**
 * The summary names the search_history tool only when the application says its agents have it: `recall.announce`
 * in code, or HISTORY_SEARCH_TOOL in the environment, read the same way by the wrapper, the HistoryManager, the
 * summarize strategy and the script. Without either, no summary names a tool the model cannot call.
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { isSummaryMessage } from "../../src/messages/summary-message.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { summarize } from "../../src/strategies/summarize.js";
import { threadStoreFor } from "../../src/store/thread-store.js";
import { runScript } from "../support/run-script.js";
import { createStore, type TestStore } from "../support/savers.js";

const LIMIT = 1_200;
const TOOL = "search_history";

function graphOf(saver: BaseCheckpointSaver) {
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state) => {
      const turn = state.messages.length;
      return {
        messages: [
          new AIMessage({
            id: `answer-${turn}-${Math.random()}`,
            content: `Answer ${turn}: invoice INV-${9000 + turn} is due on day ${turn + 2}; the courier Baltic Post charges ${40 + turn} EUR.`,
          }),
        ],
      };
    })
    .addEdge(START, "agent")
    .compile({ checkpointer: saver });
}

const request = (turn: number) =>
  new HumanMessage({
    content: `Request ${turn}: check invoice INV-${9000 + turn} for customer C-${turn * 7} and the courier's fee.`,
  });
const config = (thread: string) => ({ configurable: { thread_id: thread } });

async function headerOf(saver: BaseCheckpointSaver, thread: string): Promise<string | undefined> {
  const summary = (await threadStoreFor(saver).readHead(thread))!.messages.find((message: BaseMessage) =>
    isSummaryMessage(message),
  );
  return summary ? String(summary.content).split("\n")[0] : undefined;
}

describe("the summary names the search tool only when the agents have it", () => {
  let store: TestStore;
  beforeAll(async () => void (store = await createStore("sqlite")));
  afterAll(async () => await store.close());

  async function grown(thread: string, turns = 30): Promise<void> {
    const graph = graphOf(store.saver);
    for (let turn = 0; turn < turns; turn++) await graph.invoke({ messages: [request(turn)] }, config(thread));
  }

  it("the wrapper: not by default, yes with recall.announce or HISTORY_SEARCH_TOOL=true, an option over the environment", async () => {
    const run = async (thread: string, options: { env: Record<string, string>; recall?: { announce: boolean } }) => {
      const supervisor = new CompactingSupervisor(graphOf(store.saver), {
        trigger: { tokens: LIMIT },
        background: false,
        ...options,
      });
      for (let turn = 0; turn < 30; turn++) await supervisor.invoke({ messages: [request(turn)] }, config(thread));
      return headerOf(store.saver, thread);
    };
    expect(await run("wrapper-default", { env: {} })).not.toContain(TOOL);
    expect(await run("wrapper-option", { env: {}, recall: { announce: true } })).toContain(TOOL);
    expect(await run("wrapper-env", { env: { HISTORY_SEARCH_TOOL: "true" } })).toContain(TOOL);
    expect(
      await run("wrapper-both", { env: { HISTORY_SEARCH_TOOL: "true" }, recall: { announce: false } }),
    ).not.toContain(TOOL);
  });

  it("the HistoryManager and its summarize strategy follow the same settings", async () => {
    for (const [thread, env, named] of [
      ["manager-default", {}, false],
      ["manager-env", { HISTORY_SEARCH_TOOL: "1" }, true],
    ] as const) {
      await grown(thread);
      const report = await new HistoryManager({
        checkpointer: store.saver,
        trigger: { tokens: LIMIT },
        env,
      }).compactThread(config(thread));
      expect(report.status, report.reason).toBe("compacted");
      expect((await headerOf(store.saver, thread))?.includes(TOOL)).toBe(named);
    }
    const history = (await threadStoreFor(store.saver).readHead("manager-env"))!.messages.filter(
      (message): boolean => !isSummaryMessage(message),
    );
    // Under a manager the strategy summarizes through it (its header setting); alone it names no tool.
    for (const [env, named] of [
      [undefined, false],
      [{}, false],
      [{ HISTORY_SEARCH_TOOL: "1" }, true],
    ] as const) {
      const manager = env
        ? new HistoryManager({ checkpointer: store.saver, trigger: { tokens: 400 }, env })
        : undefined;
      const compact = manager ? (messages: readonly BaseMessage[]) => manager.compactWithinPolicy(messages) : undefined;
      const { messages } = await summarize().apply(
        [...history, ...history.map((message) => new HumanMessage({ content: String(message.content) }))],
        { budget: 400, compact },
      );
      const summary = messages.find((message) => isSummaryMessage(message));
      expect(String(summary?.content).split("\n")[0]!.includes(TOOL)).toBe(named);
    }
  });

  it("the script reads HISTORY_SEARCH_TOOL as the wrapper does, and names a bad value", async () => {
    for (const [thread, env, named] of [
      ["script-default", {}, false],
      ["script-env", { HISTORY_SEARCH_TOOL: "true" }, true],
    ] as const) {
      await grown(thread);
      const result = await runScript(
        ["compact", thread, "--db", store.location.path!, "--limit", String(LIMIT), "--json"],
        env,
      );
      expect(result.code, result.stderr).toBe(0);
      expect((await headerOf(await store.reopen(), thread))?.includes(TOOL)).toBe(named);
    }
    await grown("script-bad");
    const bad = await runScript(["compact", "script-bad", "--db", store.location.path!, "--limit", String(LIMIT)], {
      HISTORY_SEARCH_TOOL: "maybe",
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/HISTORY_SEARCH_TOOL must be true or false; got "maybe"/);
    expect(
      () =>
        new HistoryManager({
          checkpointer: store.saver,
          trigger: { tokens: LIMIT },
          env: { HISTORY_SEARCH_TOOL: "maybe" },
        }),
    ).toThrow(/HISTORY_SEARCH_TOOL/);
  });
});
