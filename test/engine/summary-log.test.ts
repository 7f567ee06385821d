/**
 * The summary as a log of segments (`summaryLog: "append"`): a compaction appends one segment and leaves the earlier
 * ones byte for byte, the log stays within the summary's budget by retiring its oldest segments whole, and nothing is
 * lost: the transcript holds every message in order, search finds what retired segments covered, and a restore
 * brings an earlier head back exactly; readConversation gives the whole thread in order. A summary written before the
 * log becomes its first segment.
 */
import { HumanMessage, mapChatMessagesToStoredMessages, type BaseMessage } from "@langchain/core/messages";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { auditThread, CompactingSupervisor, HistoryManager, LlmSummarizer, searchHistory } from "../../src/index.js";
import { compactionMiddleware } from "../../src/runtimes/in-graph/compaction-middleware.js";
import { getSummaryProvenance, summaryText } from "../../src/messages/summary-message.js";
import { logOf } from "../../src/engine/summary-log.js";
import { LAST_REQUEST_SECTION } from "../../src/summarizers/anchored.js";
import { readTranscript } from "../../src/recall/transcript.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import type { Summarizer } from "../../src/summarizers/types.js";
import type { CompactionReport } from "../../src/engine/report.js";
import type { InGraphCompactionEvent } from "../../src/runtimes/in-graph/compaction-event.js";
import { readConversation, type ConversationClient } from "../../src/client.js";
import { createTestAgent, lookupPolicy, lookupTool, runTurns } from "../support/agents.js";
import { turnText } from "../support/in-graph-suite.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";

const dir = mkdtempSync(join(tmpdir(), "compaction-summary-log-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const config = (thread: string) => ({ configurable: { thread_id: thread } });
/** A log's content: its text blocks, each segment after the first in a block of its own. */
function blocksOf(summary: BaseMessage): unknown[] {
  expect(Array.isArray(summary.content)).toBe(true);
  return summary.content as unknown[];
}

async function head(
  agent: { getState(config: object): Promise<{ values: unknown }> },
  thread: string,
): Promise<BaseMessage[]> {
  return ((await agent.getState(config(thread))).values as { messages: BaseMessage[] }).messages;
}

const summaryOf = (messages: readonly BaseMessage[]) => messages.find((message) => getSummaryProvenance(message));

/**
 * Compacts `thread` `times` times, three turns of `agent` before each, and checks each new summary against the one
 * before: the previous summary is its start, byte for byte, unless a reflection condensed the log (then the log is
 * the condensed segment and the new one); the log is within the summary's budget. Returns the messages seen, in
 * order, the heads before each compaction, and the reflections counted.
 */
async function compactRepeatedly(
  manager: HistoryManager,
  agent: ReturnType<typeof createTestAgent>["agent"],
  thread: string,
  times: number,
) {
  const counter = new TokenCounter();
  const seen = new Map<string, BaseMessage>();
  const remember = (messages: readonly BaseMessage[]) => {
    for (const message of messages)
      if (message.id && !getSummaryProvenance(message) && !seen.has(message.id)) seen.set(message.id, message);
  };
  const heads: BaseMessage[][] = [];
  let previous: BaseMessage | undefined;
  let condensations = 0;
  for (let compaction = 0; compaction < times; compaction++) {
    await runTurns(agent, thread, 3, { from: compaction * 3 });
    heads.push(await head(agent, thread));
    remember(heads.at(-1)!);
    const report = await manager.compactThread(config(thread), { force: true });
    expect(report.status, report.status === "compacted" ? "" : report.reason).toBe("compacted");
    const summary = summaryOf(await head(agent, thread))!;
    const provenance = getSummaryProvenance(summary)!;
    const log = logOf(summary);
    expect(log.segments).toHaveLength(provenance.segments!.length);
    expect(counter.countText(summaryText(summary))).toBeLessThanOrEqual(manager.policy.summaryTokens!);
    if (previous) {
      const before = getSummaryProvenance(previous)!;
      const rewritten = provenance.condensations !== before.condensations;
      if (!rewritten && provenance.retiredMessages === before.retiredMessages)
        expect(summary.content).toEqual([...blocksOf(previous), expect.objectContaining({ type: "text" })]);
      else expect(log.texts).toHaveLength(2);
      condensations += rewritten ? 1 : 0;
    }
    previous = summary;
  }
  remember(await head(agent, thread));
  return { seen, heads, condensations };
}

describe('summaryLog: "append"', () => {
  it("50 compactions: earlier segments byte for byte between reflections, the log within its budget, nothing lost, restore exact", async () => {
    const saver = SqliteSaver.fromConnString(join(dir, "log.sqlite"));
    const { agent } = createTestAgent(saver);
    const manager = new HistoryManager({ checkpointer: saver, trigger: { tokens: 900 }, summaryLog: "append" });
    const { seen, heads, condensations } = await compactRepeatedly(manager, agent, "log", 50);
    // Rewrites are rare: a reflection comes once in several compactions.
    expect(condensations).toBeGreaterThan(0);
    expect(condensations).toBeLessThanOrEqual(50 / 2);

    const transcript = await readTranscript(saver, config("log"), { limit: 10_000 });
    const ids = transcript.messages.filter((line) => line.source !== "summary").map((line) => line.message.id);
    expect(ids).toEqual([...seen.keys()]);
    const audit = await auditThread(saver, config("log"));
    expect(audit.problems, JSON.stringify(audit.problems.slice(0, 2))).toEqual([]);
    // The first turns were condensed long ago: search finds them word for word.
    const first = seen.get("turn-log-0")!;
    const hits = await searchHistory(saver, config("log"), String(first.content), { limit: 5 });
    expect(hits.map((hit) => hit.messageId)).toContain("turn-log-0");

    // A restore of the head before a compaction brings back exactly its messages, early, late or in between.
    for (const at of [5, 30, 49]) {
      const current = (await saver.getTuple(config("log")))!.checkpoint.id!;
      await manager.replaceThreadHistory(config("log"), heads[at]!, { expectedCheckpointId: current });
      expect((await head(agent, "log")).map((message) => [message.id, message.content])).toEqual(
        heads[at]!.map((message) => [message.id, message.content]),
      );
    }
    saver.db.close();
  });

  it("with LlmSummarizer: a segment's request reads the earlier segments read-only, then its span; a reflection rewrites them", async () => {
    const saver = SqliteSaver.fromConnString(join(dir, "llm.sqlite"));
    const { agent } = createTestAgent(saver);
    let written = 0;
    const model = new ScriptedChatModel({
      reply: () => ({ content: `## Facts and figures\n- SEGMENT-MARK-${++written}: ${"budget figures ".repeat(12)}` }),
    });
    const manager = new HistoryManager({
      checkpointer: saver,
      trigger: { tokens: 900 },
      summaryLog: "append",
      summarizer: new LlmSummarizer({ model }),
    });
    const { condensations } = await compactRepeatedly(manager, agent, "llm", 20);
    expect(condensations).toBeGreaterThan(0);
    const requests = model.calls.map((call) => call.map((message) => String(message.content)));
    // A reflection's request folds the earlier segments in as a previous summary, with no messages.
    const reflections = requests.filter(([, data]) => data!.startsWith("<previous_summary>"));
    expect(reflections).toHaveLength(condensations);
    for (const [, data] of reflections) expect(data).toContain("<conversation>\n</conversation>");
    // A segment's request: the segment's instruction, the earlier segments as they stand (the mark of the answer
    // before, unless a reflection came between), then its span.
    const segments = requests.filter(([, data]) => data!.startsWith("<earlier_segments>"));
    expect(segments).toHaveLength(requests.length - condensations);
    expect(segments[0]![1]).toMatch(/^<earlier_segments>\n\n<\/earlier_segments>/);
    for (const [index, [instruction, data]] of segments.entries()) {
      expect(instruction).toContain("do not repeat what the earlier segments say");
      expect(data).toContain("the invoice total for order");
      if (index > 0) expect(data!.split("</earlier_segments>")[0]).toMatch(/SEGMENT-MARK-\d+/);
    }
    // No segment carries the last request: the newest user turn is in the kept messages, word for word.
    const log = summaryText(summaryOf(await head(agent, "llm"))!);
    expect(log).toContain("SEGMENT-MARK-");
    expect(log).not.toContain("Last user request");
    expect(await head(agent, "llm")).toContainEqual(expect.objectContaining({ id: "turn-llm-59" }));
    saver.db.close();
  });

  it("a reflection the summarizer fails falls back to fallbackSummarizer, as the summary does", async () => {
    const saver = SqliteSaver.fromConnString(join(dir, "fallback.sqlite"));
    const { agent } = createTestAgent(saver);
    const extractive = new ExtractiveSummarizer();
    const summarizer: Summarizer = {
      name: "segments-only",
      summarize: async (input) => {
        if (input.messages.length === 0) throw new Error("this summarizer writes no reflection");
        return extractive.summarize(input);
      },
    };
    const manager = new HistoryManager({
      checkpointer: saver,
      trigger: { tokens: 900 },
      summaryLog: "append",
      summarizer,
      fallbackSummarizer: "extractive",
    });
    const { condensations } = await compactRepeatedly(manager, agent, "fallback", 20);
    expect(condensations).toBeGreaterThan(0);
    const reflected = (await saver.getTuple(config("fallback")))!;
    const provenance = getSummaryProvenance(summaryOf(reflected.checkpoint.channel_values.messages as BaseMessage[]));
    expect(provenance?.condensations).toBe(condensations);
    saver.db.close();
  });

  it("a reflection that fails without a fallback leaves the new segment to land and says so: the thread keeps compacting, nothing lost (wrapper, middleware)", async () => {
    const extractive = new ExtractiveSummarizer();
    const failing = (kind: string): Summarizer => ({
      name: `no-reflection-${kind}`,
      summarize: async (input) => {
        if (input.messages.length > 0) return extractive.summarize(input);
        if (kind === "empty") return "";
        throw new Error(`reflection refused (${kind})`);
      },
    });
    const ask = (index: number) => ({
      messages: [
        new HumanMessage({
          id: `reflect-${index}`,
          content: `Question ${index}: what did invoice INV-${1000 + index} cost, and who signed order ord_${index}?`,
        }),
      ],
    });
    const counter = new TokenCounter();
    for (const kind of ["throws", "empty"]) {
      const saver = new MemorySaver();
      const reports: CompactionReport[] = [];
      const wrapped = new CompactingSupervisor(createTestAgent(saver).agent, {
        trigger: { tokens: 600 },
        background: false,
        summaryLog: "append",
        summarizer: failing(kind),
        onCompaction: (report) => void reports.push(report),
        env: {},
      });
      // Back to back: no turn waits for anything between turns.
      for (let index = 0; index < 60; index++) await wrapped.invoke(ask(index), config(`wrapper-${kind}`));
      const failedReflections = reports.filter((report) => report.status === "compacted" && report.reflectionFailed);
      expect(failedReflections.length, kind).toBeGreaterThan(0);
      expect(failedReflections[0]!.status === "compacted" && failedReflections[0]!.reflectionFailed).toMatch(
        /reflection of \d+ older segments failed/,
      );
      // Compactions after the first failed reflection still land.
      const afterFirst = reports.slice(reports.indexOf(failedReflections[0]!) + 1);
      expect(afterFirst.filter((report) => report.status === "compacted").length, kind).toBeGreaterThan(2);
      const messages = (await saver.getTuple(config(`wrapper-${kind}`)))!.checkpoint.channel_values
        .messages as BaseMessage[];
      expect(counter.countMessages(messages), kind).toBeLessThan(2 * 600);
      expect(getSummaryProvenance(summaryOf(messages))?.retiredMessages, kind).toBeGreaterThan(0);
      const audit = await auditThread(saver, config(`wrapper-${kind}`));
      expect(audit.problems, JSON.stringify(audit.problems.slice(0, 2))).toEqual([]);
    }
    const saver = new MemorySaver();
    const seen: InGraphCompactionEvent[] = [];
    const agent = createAgent({
      model: new ScriptedChatModel({ reply: lookupPolicy }),
      checkpointer: saver,
      middleware: [
        compactionMiddleware({
          trigger: { tokens: 600 },
          background: false,
          summaryLog: "append",
          summarizer: failing("throws"),
          onCompaction: (report) => void seen.push(report),
          env: {},
        }),
      ],
    });
    for (let index = 0; index < 60; index++) await agent.invoke(ask(index), config("middleware-reflect"));
    expect(seen.some((event) => event.reflectionFailed)).toBe(true);
    const messages = (await saver.getTuple(config("middleware-reflect")))!.checkpoint.channel_values
      .messages as BaseMessage[];
    expect(counter.countMessages(messages)).toBeLessThan(2 * 600);
  });

  it("the first compaction after the upgrade turns the running summary into the first segment", async () => {
    const saver = SqliteSaver.fromConnString(join(dir, "upgrade.sqlite"));
    const { agent } = createTestAgent(saver);
    await runTurns(agent, "upgrade", 8);
    await new HistoryManager({ checkpointer: saver, trigger: { tokens: 900 } }).compactThread(config("upgrade"), {
      force: true,
    });
    const running = summaryOf(await head(agent, "upgrade"))!;
    expect(getSummaryProvenance(running)!.segments).toBeUndefined();
    await runTurns(agent, "upgrade", 6, { from: 8 });
    const manager = new HistoryManager({ checkpointer: saver, trigger: { tokens: 900 }, summaryLog: "append" });
    expect((await manager.compactThread(config("upgrade"), { force: true })).status).toBe("compacted");
    const summary = summaryOf(await head(agent, "upgrade"))!;
    const log = logOf(summary);
    expect(log.texts).toHaveLength(2);
    expect(log.texts[0]).toBe(summaryText(running));
    expect(log.segments[0]!.messages).toBe(getSummaryProvenance(running)!.coveredMessages);
    expect(blocksOf(summary)[0]).toEqual({ type: "text", text: running.content });
    saver.db.close();
  });

  it("an LLM running summary becomes the first segment without its last request, which would stay there stale", async () => {
    const saver = SqliteSaver.fromConnString(join(dir, "upgrade-llm.sqlite"));
    const { agent } = createTestAgent(saver);
    const model = new ScriptedChatModel({
      reply: () => ({ content: "## Decisions\n- UPGRADE-MARK: the budget holds" }),
    });
    const summarizer = new LlmSummarizer({ model });
    await runTurns(agent, "upgrade-llm", 8);
    await new HistoryManager({ checkpointer: saver, trigger: { tokens: 900 }, summarizer }).compactThread(
      config("upgrade-llm"),
      { force: true },
    );
    const running = summaryText(summaryOf(await head(agent, "upgrade-llm"))!);
    expect(running).toContain(`## ${LAST_REQUEST_SECTION}`);
    await runTurns(agent, "upgrade-llm", 6, { from: 8 });
    const manager = new HistoryManager({
      checkpointer: saver,
      trigger: { tokens: 900 },
      summaryLog: "append",
      summarizer,
    });
    expect((await manager.compactThread(config("upgrade-llm"), { force: true })).status).toBe("compacted");
    const log = logOf(summaryOf(await head(agent, "upgrade-llm")));
    expect(log.texts).toHaveLength(2);
    expect(log.texts[0]).toBe("## Decisions\n- UPGRADE-MARK: the budget holds");
    expect(log.segments[0]!.chars).toBe(log.texts[0]!.length);
    // The new segment's request read the log as it now stands: without the section.
    const [, data] = model.calls.at(-1)!.map((message) => String(message.content));
    expect(data!.split("</earlier_segments>")[0]).toContain("UPGRADE-MARK");
    expect(data!.split("</earlier_segments>")[0]).not.toContain(LAST_REQUEST_SECTION);
    saver.db.close();
  });

  it("the wrapper and the middleware write a log when asked", async () => {
    const saver = new MemorySaver();
    const ask = (index: number) => ({
      messages: [
        new HumanMessage({
          id: `ask-${index}`,
          content: `Question ${index}: what did invoice INV-${1000 + index} cost, and who signed order ord_${index}?`,
        }),
      ],
    });
    const wrapped = new CompactingSupervisor(createTestAgent(saver).agent, {
      trigger: { tokens: 500 },
      background: false,
      summaryLog: "append",
      env: {},
    });
    for (let index = 0; index < 30; index++) await wrapped.invoke(ask(index), config("wrapper"));
    const agent = createAgent({
      model: new ScriptedChatModel({ reply: lookupPolicy }),
      checkpointer: saver,
      middleware: [
        compactionMiddleware({ trigger: { tokens: 500 }, background: false, summaryLog: "append", env: {} }),
      ],
    });
    for (let index = 0; index < 30; index++) await agent.invoke(ask(index), config("middleware"));
    for (const thread of ["wrapper", "middleware"]) {
      const messages = (await saver.getTuple(config(thread)))!.checkpoint.channel_values.messages as BaseMessage[];
      const segments = getSummaryProvenance(summaryOf(messages))?.segments ?? [];
      expect(segments.length, thread).toBeGreaterThan(1);
    }
  });

  it("readConversation gives a log's thread in order: 40 compactions in the middleware, the transcript in the graph's store", async () => {
    const store = new InMemoryStore();
    const saver = new MemorySaver();
    const agent = createAgent({
      model: new ScriptedChatModel({ reply: lookupPolicy }),
      tools: [lookupTool],
      checkpointer: saver,
      store,
      middleware: [
        compactionMiddleware({ trigger: { tokens: 400 }, background: false, summaryLog: "append", env: {} }),
      ],
    });
    const seen = new Map<string, BaseMessage>();
    const summaries = new Set<string>();
    for (let index = 0; summaries.size < 40; index++) {
      expect(index, "compactions after 200 turns").toBeLessThan(200);
      await agent.invoke({ messages: [new HumanMessage({ id: `c-${index}`, content: turnText(index) })] }, config("c"));
      for (const message of await head(agent, "c")) {
        if (getSummaryProvenance(message)) summaries.add(message.id!);
        else if (message.id && !seen.has(message.id)) seen.set(message.id, message);
      }
    }
    const last = getSummaryProvenance(summaryOf(await head(agent, "c"))!)!;
    expect(last.condensations).toBeGreaterThan(0);
    // The client reads the state and the store as the SDK gives them: messages as plain JSON, items as stored.
    const client: ConversationClient = {
      threads: {
        getState: async (thread) => ({
          values: {
            messages: mapChatMessagesToStoredMessages(await head(agent, thread)).map(({ type, data }) => ({
              ...data,
              type,
            })),
          },
        }),
      },
      store: { searchItems: async (prefix, options) => ({ items: await store.search(prefix, options) }) },
    };
    const conversation = await readConversation(client, "c", { limit: 10_000 });
    const shown = conversation.messages.filter((line) => line.source !== "summary");
    expect(shown.map((line) => line.message.id)).toEqual([...seen.keys()]);
    for (const line of shown) expect(line.message.content).toEqual(seen.get(line.message.id!)!.content);
    expect(new Set(shown.flatMap((line) => (line.compaction ? [line.compaction] : []))).size).toBeGreaterThanOrEqual(
      40,
    );
  });

  it("a log's summary takes 0.75 of the limit by default, in every runtime; summaryTokens still wins", () => {
    const saver = new MemorySaver();
    const graph = createTestAgent(saver).agent;
    const manager = (options: object) =>
      new HistoryManager({ checkpointer: saver, trigger: { tokens: 4_000 }, ...options });
    const wrapper = (options: object) =>
      new CompactingSupervisor(graph, { trigger: { tokens: 4_000 }, env: {}, ...options });
    expect(manager({ summaryLog: "append" }).policy.summaryTokens).toBe(3_000);
    expect(wrapper({ summaryLog: "append" }).policy.summaryTokens).toBe(3_000);
    const middleware = compactionMiddleware({ trigger: { tokens: 4_000 }, summaryLog: "append", env: {} });
    expect(middleware.policy.summaryTokens).toBe(3_000);
    expect(manager({}).policy.summaryTokens).toBe(2_400);
    expect(wrapper({ summaryLog: "rewrite" }).policy.summaryTokens).toBe(2_400);
  });

  it("a value that is not a log kind is refused by name", () => {
    const saver = SqliteSaver.fromConnString(":memory:");
    expect(
      () => new HistoryManager({ checkpointer: saver, trigger: { tokens: 900 }, summaryLog: "log" as "append" }),
    ).toThrow(/summaryLog/);
  });
});
