/**
 * readTranscript keeps the conversation's order whatever the order in which messages left the head: an exchange the
 * application removed (backfilled into the transcript by a prune) before a compaction of the messages before it, and
 * a restore's dropped turns before a compaction, and a thread restored twice with cleared tool results in it, read back
 * where the conversation had them.
 */
import { AIMessage, HumanMessage, RemoveMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { getSummaryProvenance } from "../../src/messages/summary-message.js";
import { readTranscript } from "../../src/recall/transcript.js";
import { clearToolResults } from "../../src/strategies/clear-tool-results.js";
import { compactWithStrategy } from "../../src/strategies/strategy-compaction.js";
import { createStore, SAVER_KINDS, type TestStore } from "../support/savers.js";
import { runScript } from "../support/run-script.js";

const config = { configurable: { thread_id: "ordered" } };
const ids = (messages: BaseMessage[]) => messages.map((message) => message.id);

/** Twelve exchanges written to the thread one checkpoint each: what was sent, and the checkpoint after each. */
async function twelveTurns(store: TestStore) {
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("agent", async () => ({}))
    .addEdge(START, "agent")
    .addEdge("agent", END)
    .compile({ checkpointer: store.saver });
  const sent: BaseMessage[] = [];
  const after: string[] = [];
  for (let turn = 0; turn < 12; turn++) {
    const pair = [
      new HumanMessage({
        id: `h${turn}`,
        content: `question ${turn}: the invoice for order ord_${1000 + turn} is ${turn * 17} EUR, approved by Dana Okafor.`,
      }),
      new AIMessage({ id: `a${turn}`, content: `answer ${turn}: recorded ord_${1000 + turn}, ${turn * 17} EUR.` }),
    ];
    sent.push(...pair);
    await graph.updateState(config, { messages: pair }, "agent");
    after.push((await store.saver.getTuple(config))!.checkpoint.id);
  }
  return { graph, sent, after };
}

for (const kind of SAVER_KINDS) {
  describe(`the transcript's order after a removal and a compaction (${kind})`, () => {
    let store: TestStore;
    beforeEach(async () => void (store = await createStore(kind)));
    afterEach(async () => await store.close());

    it("an exchange removed by the application, pruned into the transcript, then the messages before it compacted", async () => {
      const { graph, sent } = await twelveTurns(store);
      // The application removes exchange 5; a prune writes it to the transcript before deleting its checkpoints.
      await graph.updateState(
        config,
        { messages: [new RemoveMessage({ id: "h5" }), new RemoveMessage({ id: "a5" })] },
        "agent",
      );
      const manager = new HistoryManager({ checkpointer: store.saver, trigger: { tokens: 500 }, env: {} });
      await manager.pruneThread(config, { keep: 1 });
      // Then a compaction summarizes messages before and after the removed exchange.
      const report = await manager.compactThread(config);
      expect(report.status, report.reason).toBe("compacted");
      const page = await readTranscript(store.saver, config, { limit: 1_000 });
      const read = page.messages.filter((line) => !getSummaryProvenance(line.message)).map((line) => line.message);
      expect(ids(read)).toEqual(ids(sent));
    });

    it.runIf(kind === "sqlite")("a restore's dropped turns, then the messages before them compacted", async () => {
      const { sent, after } = await twelveTurns(store);
      const restorePoint = after[9];
      // The script's restore to turn 9 drops turns 10 and 11 (into the transcript)...
      const restored = await runScript([
        "restore",
        "ordered",
        "--db",
        store.location.path!,
        "--checkpoint",
        restorePoint!,
        "--json",
      ]);
      expect(restored.code, restored.stderr).toBe(0);
      // ...then a compaction of the messages before them.
      const reader = await store.reopen();
      const report = await new HistoryManager({
        checkpointer: reader,
        trigger: { tokens: 400 },
        env: {},
      }).compactThread(config);
      expect(report.status, report.reason).toBe("compacted");
      const page = await readTranscript(reader, config, { limit: 1_000 });
      const read = page.messages.filter((line) => !getSummaryProvenance(line.message)).map((line) => line.message);
      expect(ids(read)).toEqual(ids(sent));
    });

    it("a thread restored twice, with cleared tool results, compacted between and after", async () => {
      const graph = new StateGraph(MessagesAnnotation)
        .addNode("agent", async () => ({}))
        .addEdge(START, "agent")
        .addEdge("agent", END)
        .compile({ checkpointer: store.saver });
      const sent: BaseMessage[] = [];
      const turn = async (n: number) => {
        const exchange = [
          new HumanMessage({ id: `h${n}`, content: `question ${n}: what is the status of order ord_${1000 + n}?` }),
          new AIMessage({
            id: `c${n}`,
            content: "",
            tool_calls: [{ id: `call${n}`, name: "lookup_order", args: { order: `ord_${1000 + n}` } }],
          }),
          new ToolMessage({
            id: `t${n}`,
            tool_call_id: `call${n}`,
            content: `order ord_${1000 + n}: ${"shipped from Berlin, invoice 4200 EUR, approved by Dana Okafor. ".repeat(8)}`,
          }),
          new AIMessage({
            id: `a${n}`,
            content: `answer ${n}: ${`ord_${1000 + n} shipped from the Berlin warehouse on the third, invoice ${n * 100 + 4200} EUR. `.repeat(3)}`,
          }),
        ];
        sent.push(...exchange);
        await graph.updateState(config, { messages: exchange }, "agent");
        return (await store.saver.getTuple(config))!.checkpoint.id;
      };
      const manager = new HistoryManager({ checkpointer: store.saver, trigger: { tokens: 800 }, env: {} });
      const restore = async (to: string) => {
        const head = (await manager.store.readHead("ordered"))!;
        const target = (await manager.store.listCheckpoints("ordered")).find(
          (stored) => stored.tuple.checkpoint.id === to,
        )!;
        // What the script's restore writes.
        await manager.replaceThreadHistory(config, target.messages, {
          expectedCheckpointId: head.tuple.checkpoint.id,
          metadata: { restore: { fromCheckpointId: to, replacedCheckpointId: head.tuple.checkpoint.id } },
        });
      };
      for (let n = 0; n < 5; n++) await turn(n);
      // Tool results cleared (their originals go to the transcript), then a compaction takes the edited copies out.
      const editor = new HistoryManager({ checkpointer: store.saver, trigger: { tokens: 100 }, env: {} });
      const cleared = await compactWithStrategy({
        manager: editor,
        strategy: clearToolResults({ keep: 0, minTokens: 0 }),
        threadId: "ordered",
      });
      expect(cleared.status, cleared.reason).toBe("compacted");
      const afterFive = await turn(5);
      const first = await manager.compactThread(config, { compactionRatio: 0.2 });
      expect(first.status, first.reason).toBe("compacted");
      const afterSix = await turn(6);
      // Back to before the compaction: exchange 6 leaves the head, the compacted messages return.
      await restore(afterFive);
      await turn(7);
      // Back to where exchange 6 was: it returns, exchange 7 leaves.
      await restore(afterSix);
      await turn(8);
      // The last compaction keeps the returned answer 6 (its exchange summarized) and exchange 8.
      const report = await manager.compactThread(config, { keepTokens: 400 });
      expect(report.status, report.reason).toBe("compacted");
      expect(ids((await manager.store.readHead("ordered"))!.messages).slice(1)).toEqual(["a6", "h8", "c8", "t8", "a8"]);
      const page = await readTranscript(store.saver, config, { limit: 1_000 });
      const read = page.messages.filter((line) => !getSummaryProvenance(line.message)).map((line) => line.message);
      expect(ids(read)).toEqual(ids(sent));
    });
  });
}
