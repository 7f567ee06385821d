/**
 * One policy, every entry point: copies of the same stored thread compacted through the wrapper (one turn over the
 * limit, background: false), the wrapper with the summarize strategy, HistoryManager.compactThread and the script,
 * with the same limit, get the same cut and the same summary — on SQLite and on Postgres.
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { isSummaryMessage } from "../../src/messages/summary-message.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { createStrategy } from "../../src/strategies/registry.js";
import { threadStoreFor } from "../../src/store/thread-store.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { runScript } from "../support/run-script.js";
import { createStore, type TestStore } from "../support/savers.js";

const LIMIT = 1_500;
const counter = new TokenCounter();

/** Every message has an id fixed by its turn, so three copies of the thread hold the very same messages. */
function deterministicGraph(saver: BaseCheckpointSaver) {
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state) => {
      const turn = Number(String(state.messages.at(-1)?.content ?? "").match(/^Request (\d+)/)?.[1] ?? -1);
      return {
        messages: [
          new AIMessage({
            id: `answer-${turn}`,
            content: `Answer ${turn}: shipment SHP-${4000 + turn} leaves dock ${turn % 7} on day ${turn + 3}; carrier Norrland Freight quoted ${120 + turn * 9} EUR and insurance covers ${turn * 1_000} EUR.`,
          }),
        ],
      };
    })
    .addEdge(START, "agent")
    .compile({ checkpointer: saver });
}

const request = (turn: number) =>
  new HumanMessage({
    id: `request-${turn}`,
    content: `Request ${turn}: book shipment SHP-${4000 + turn} for customer C-${turn * 13}, fragile goods.`,
  });
const config = (thread: string) => ({ configurable: { thread_id: thread } });

async function headOf(saver: BaseCheckpointSaver, thread: string): Promise<BaseMessage[]> {
  return (await threadStoreFor(saver).readHead(thread))!.messages;
}

const isSummary = (message: BaseMessage): boolean => isSummaryMessage(message);

type Shaped = ReturnType<typeof shape>;

function shape(messages: BaseMessage[]) {
  const summary = messages.find(isSummary);
  return {
    kept: messages.filter((message) => !isSummary(message)).map((message) => message.id),
    summaryTokens: summary ? counter.countMessage(summary) : 0,
    header: summary ? String(summary.content).split("\n")[0] : undefined,
  };
}

for (const kind of ["sqlite", "postgres"] as const) {
  describe(`one policy on ${kind}`, () => {
    let store: TestStore;
    beforeAll(async () => {
      store = await createStore(kind);
    });
    afterAll(async () => {
      await store.close();
    });

    it("wrapper, the summarize strategy, HistoryManager.compactThread and the script make the same cut and the same summary", async () => {
      const graph = deterministicGraph(store.saver);
      // The turn that takes the thread over the limit.
      let turns = 0;
      while (counter.countMessages(await headOf(store.saver, "probe").catch((): BaseMessage[] => [])) <= LIMIT)
        await graph.invoke({ messages: [request(turns++)] }, config("probe"));
      for (const thread of ["via-wrapper", "via-strategy", "via-manager", "via-script"]) {
        for (let turn = 0; turn < turns - 1; turn++) await graph.invoke({ messages: [request(turn)] }, config(thread));
      }
      const supervisor = new CompactingSupervisor(graph, { trigger: { tokens: LIMIT }, background: false, env: {} });
      await supervisor.invoke({ messages: [request(turns - 1)] }, config("via-wrapper"));
      // The summarize strategy asks the same engine: the same cut and summary.
      const viaStrategy = new CompactingSupervisor(graph, {
        trigger: { tokens: LIMIT },
        background: false,
        env: {},
        strategy: createStrategy("summarize"),
      });
      await viaStrategy.invoke({ messages: [request(turns - 1)] }, config("via-strategy"));
      for (const thread of ["via-manager", "via-script"])
        await graph.invoke({ messages: [request(turns - 1)] }, config(thread));

      const report = await new HistoryManager({
        checkpointer: store.saver,
        trigger: { tokens: LIMIT },
        env: {},
      }).compactThread(config("via-manager"));
      expect(report.status, report.reason).toBe("compacted");
      const where =
        kind === "sqlite"
          ? ["--db", store.location.path!]
          : ["--postgres", store.location.url!, "--schema", store.location.schema!];
      const script = await runScript(["compact", "via-script", ...where, "--limit", String(LIMIT), "--json"]);
      expect(script.code, script.stderr).toBe(0);
      expect(JSON.parse(script.stdout).status).toBe("compacted");

      const reader = await store.reopen();
      const [wrapper, strategy, manager, viaScript] = (await Promise.all(
        ["via-wrapper", "via-strategy", "via-manager", "via-script"].map(async (thread) =>
          shape(await headOf(reader, thread)),
        ),
      )) as [Shaped, Shaped, Shaped, Shaped];
      expect(wrapper.summaryTokens).toBeGreaterThan(0);
      expect(manager.kept).toEqual(wrapper.kept);
      expect(strategy.kept).toEqual(wrapper.kept);
      expect(strategy.header).toBe(wrapper.header);
      expect(strategy.summaryTokens).toBe(wrapper.summaryTokens);
      expect(viaScript.kept).toEqual(wrapper.kept);
      // The same header, which names no search tool: nothing said the agents have one.
      expect(manager.header).toBe(wrapper.header);
      expect(viaScript.header).toBe(wrapper.header);
      expect(wrapper.header).not.toContain("search_history");
      for (const other of [manager, viaScript])
        expect(Math.abs(other.summaryTokens - wrapper.summaryTokens)).toBeLessThanOrEqual(wrapper.summaryTokens * 0.05);
      // The policy's figures, not a ratio of the messages: the summary's budget is 60% of the limit.
      expect(supervisor.policy.summaryTokens).toBe(900);
    });

    it("a thread the wrapper compacted keeps its running summary when the script compacts it again", async () => {
      const graph = deterministicGraph(store.saver);
      const supervisor = new CompactingSupervisor(graph, { trigger: { tokens: LIMIT }, background: false, env: {} });
      for (let turn = 0; turn < 40; turn++) await supervisor.invoke({ messages: [request(turn)] }, config("again"));
      const before = shape(await headOf(store.saver, "again")).summaryTokens;
      expect(before).toBeGreaterThan(0);
      for (let turn = 40; turn < 44; turn++) await graph.invoke({ messages: [request(turn)] }, config("again"));
      const where =
        kind === "sqlite"
          ? ["--db", store.location.path!]
          : ["--postgres", store.location.url!, "--schema", store.location.schema!];
      const script = await runScript(["compact", "again", ...where, "--limit", String(LIMIT), "--json"]);
      expect(script.code, script.stderr).toBe(0);
      const after = shape(await headOf(await store.reopen(), "again")).summaryTokens;
      // Budgeted as the wrapper's (up to 60% of the limit): the running summary is not cut down to a small one.
      expect(after).toBeGreaterThanOrEqual(before * 0.9);
    });
  });
}
