/**
 * Exit 9 (write conflict), as a child process: while the script's summary is being written (the summarizer's
 * request has reached the local OpenAI-protocol server and is held there), another writer compacts the same
 * thread, so the messages the script summarized are no longer the thread's. Each of the script's attempts loses
 * that way; it exits 9 and writes nothing. Ordered by the server's requests, never by timing.
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { MAX_WRITE_ATTEMPTS } from "../../src/engine/manager-options.js";
import { getSummaryProvenance } from "../../src/messages/summary-message.js";
import { EXIT } from "../../src/cli/exit-codes.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import { startChatCompletionsServer, type ChatCompletionsServer } from "../support/fakes/chat-completions-server.js";
import { compactThread } from "../support/run-script.js";

const THREAD = "contested";
let dir: string;
let store: string;
let saver: SqliteSaver;
let server: ChatCompletionsServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "compaction-conflict-"));
  store = join(dir, "app.sqlite");
  saver = SqliteSaver.fromConnString(store);
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state) => ({
      messages: [
        new AIMessage(`answer ${state.messages.length}: the shipment ${state.messages.length} left Rotterdam on time.`),
      ],
    }))
    .addEdge("__start__", "agent")
    .compile({ checkpointer: saver });
  for (let turn = 0; turn < 40; turn++)
    await graph.invoke(
      { messages: [new HumanMessage(`where is shipment ${turn}?`)] },
      { configurable: { thread_id: THREAD } },
    );
});

afterAll(async () => {
  await server?.close();
  saver.db.close();
  rmSync(dir, { recursive: true, force: true });
});

it("exits 9 when every attempt's summarized messages were rewritten by another writer meanwhile", async () => {
  const other = new HistoryManager({
    checkpointer: saver,
    summarizer: new ExtractiveSummarizer(),
    compactionRatio: 0.3,
  });
  const config = { configurable: { thread_id: THREAD } };
  const landed: string[] = [];
  server = await startChatCompletionsServer(async () => {
    // The script has summarized a snapshot; another writer now compacts the thread before the answer returns.
    const report = await other.compactThread(config);
    landed.push(report.status);
    return { content: "## Facts and figures\n- shipments tracked" };
  });
  const result = await compactThread(
    ["compact", THREAD, "--db", store, "--summarizer", "openai", "--ratio", "0.5", "--limit", "400"],
    {
      OPENAI_API_KEY: "sk-test-conflict",
      OPENAI_BASE_URL: server.url,
    },
  );
  expect(result.code, result.stderr).toBe(EXIT.writeConflict);
  expect(result.stderr).toMatch(/gave up after \d+ attempts: the summary was discarded/);
  expect(landed).toEqual(Array(MAX_WRITE_ATTEMPTS).fill("compacted"));
  // The head is the other writer's last compaction: the script wrote nothing.
  const head = await saver.getTuple({ configurable: { thread_id: THREAD, checkpoint_ns: "" } });
  expect(head?.metadata?.source).toBe("update");
  const messages = head!.checkpoint.channel_values.messages as HumanMessage[];
  expect(getSummaryProvenance(messages[0]!)?.summarizer).toBe("extractive");
});
