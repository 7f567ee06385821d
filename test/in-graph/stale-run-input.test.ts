/**
 * A createAgent run reads the thread's state before it starts (langchain's ReactAgent, with any middleware: the
 * state's values, then the input over them, are the run's input). An out-of-band compaction (the script, a fleet
 * worker) that commits between that read and the run's start hands the run the messages it just took out: through
 * LangGraph's id-merging reducer they come back after the summary that covers them. The saver below forces that
 * interleaving: the run's first read of the head returns only once the compaction has committed.
 *
 * What must hold, for an input with `messages` and without: the model never receives a message a summary in its
 * context covers, the head holds none after the next model call, and the transcript is unchanged by the run.
 */
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import { createAgent } from "langchain";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { getSummaryProvenance } from "../../src/messages/summary-message.js";
import { compactionMiddleware } from "../../src/runtimes/in-graph/compaction-middleware.js";
import { threadStoreFor } from "../../src/store/thread-store.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";

/** A SqliteSaver whose next read of a head runs `between` after reading it and before handing it back. */
class InterleavingSaver extends SqliteSaver {
  between?: () => Promise<void>;
  override async getTuple(config: RunnableConfig) {
    const tuple = await super.getTuple(config);
    const hold = this.between;
    this.between = undefined;
    if (hold) await hold();
    return tuple;
  }
}

let dir: string;
let saver: InterleavingSaver;
let worker: SqliteSaver;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "compaction-stale-input-"));
  saver = new InterleavingSaver(new Database(join(dir, "app.sqlite")));
  // The out-of-band compactor: its own connection to the same file, as another process has.
  worker = new SqliteSaver(new Database(join(dir, "app.sqlite")));
});
afterEach(() => {
  saver.db.close();
  worker.db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every id a summary of `messages` covers that also stands after it. */
function coveredAfterSummary(messages: readonly BaseMessage[]): string[] {
  const stale: string[] = [];
  messages.forEach((message, index) => {
    const covered = new Set(getSummaryProvenance(message)?.coveredIds ?? []);
    for (const later of messages.slice(index + 1)) if (later.id && covered.has(later.id)) stale.push(later.id);
  });
  return stale;
}

it.each([
  [
    "with messages",
    (turn: number) => ({
      messages: [new HumanMessage({ id: `ask-${turn}`, content: `Question ${turn}: where is parcel PX-${turn}?` })],
    }),
  ],
  ["without messages", () => ({}) as { messages: BaseMessage[] }],
])(
  "an out-of-band compaction between the run's read and its start, input %s: no covered message comes back",
  async (_, input) => {
    const seen: BaseMessage[][] = [];
    const model = new ScriptedChatModel({
      reply: (messages) => {
        seen.push([...messages]);
        return {
          content: `Answer ${messages.length}: parcel PX-${messages.length} is in depot ${messages.length % 7}, row ${messages.length * 3}, signed for by the clerk.`,
        };
      },
    });
    const agent = createAgent({
      model,
      tools: [],
      checkpointer: saver,
      middleware: [compactionMiddleware({ trigger: { tokens: 100_000 }, env: {} })],
    });
    const config = { configurable: { thread_id: "stale" } };
    for (let turn = 0; turn < 12; turn++)
      await agent.invoke(
        {
          messages: [
            new HumanMessage({
              id: `ask-${turn}`,
              content: `Question ${turn}: where is parcel PX-${turn}, and who signed for it?`,
            }),
          ],
        },
        config,
      );
    const outOfBand = new HistoryManager({ checkpointer: worker, trigger: { tokens: 400 }, env: {} });
    let compacted = false;
    saver.between = async () => {
      compacted = (await outOfBand.compactThread(config, { force: true })).status === "compacted";
    };
    const transcriptBefore = (await threadStoreFor(worker).recall.entries("stale")).map((entry) => entry.messageId);
    seen.length = 0;
    await agent.invoke(input(12), config);
    expect(compacted).toBe(true);
    const transcriptAfter = (await threadStoreFor(worker).recall.entries("stale")).map((entry) => entry.messageId);
    expect(transcriptAfter.length).toBeGreaterThan(transcriptBefore.length);
    // The model never saw a covered message after its summary.
    for (const messages of seen) expect(coveredAfterSummary(messages)).toEqual([]);
    // The head holds none either, and the next turn works.
    await agent.invoke({ messages: [new HumanMessage({ id: "ask-next", content: "And PX-3?" })] }, config);
    const head = (await agent.graph.getState(config)).values.messages as BaseMessage[];
    expect(coveredAfterSummary(head)).toEqual([]);
    // The transcript is what the compaction wrote: nothing of the run's stale input went in or out.
    expect((await threadStoreFor(worker).recall.entries("stale")).map((entry) => entry.messageId)).toEqual(
      transcriptAfter,
    );
  },
);
