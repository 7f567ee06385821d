import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { ContextOverflowError } from "@langchain/core/errors";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { MessagesAnnotation, StateGraph, START, END, Annotation } from "@langchain/langgraph";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CompactionError } from "../../src/errors.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import type { CompactedReport, CompactionReport } from "../../src/engine/report.js";
import { getSummaryProvenance, isSummaryMessage } from "../../src/messages/summary-message.js";
import { validateHistory } from "../../src/messages/validate.js";
import { LlmSummarizer } from "../../src/summarizers/llm.js";
import { CompactingSupervisor, COMPACTION_EVENT } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import type { TokenStreamEvent } from "../../src/runtimes/wrapper/token-events.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";
import { createTeam, scriptedModels } from "../support/team.js";
import { modelWithHardLimit } from "../support/window.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";

const REQUESTS = [
  "What did incident INC-2291 cost us, and who approved the refunds?",
  "Please fix the rounding test for 0.005 EUR amounts.",
  "What are the Stripe fees for EU cards, and when is the renewal due?",
  "Run the invoice tests again after the fix.",
];

/** The stored bytes of every sub-agent checkpoint (namespaces other than the root) of a thread. */
function subAgentCheckpoints(saver: SqliteSaver, threadId: string): Map<string, string> {
  if (!saver.db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'checkpoints'`).get()) return new Map();
  const rows = saver.db
    .prepare(
      `SELECT checkpoint_ns, checkpoint_id, checkpoint, metadata FROM checkpoints WHERE thread_id = ? AND checkpoint_ns != ''`,
    )
    .all(threadId) as Array<{ checkpoint_ns: string; checkpoint_id: string; checkpoint: Buffer; metadata: Buffer }>;
  return new Map(
    rows.map((row) => [
      `${row.checkpoint_ns}/${row.checkpoint_id}`,
      `${row.checkpoint.toString("base64")}:${row.metadata.toString("base64")}`,
    ]),
  );
}

describe("CompactingSupervisor over a real createSupervisor team", () => {
  let dir: string;
  let saver: SqliteSaver;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "compaction-supervisor-"));
    saver = SqliteSaver.fromConnString(join(dir, "team.sqlite"));
  });
  afterEach(() => {
    vi.restoreAllMocks();
    saver.db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("holds 32 turns under a small limit, compacting several times, the history always valid", async () => {
    const team = createTeam(saver);
    const reports: CompactionReport[] = [];
    const errors: unknown[] = [];
    const supervisor = new CompactingSupervisor(team, {
      trigger: { tokens: 2_500 },
      background: true,
      onCompaction: (report) => void (report.status === "compacted" && reports.push(report)),
      onCompactionError: (error) => void errors.push(error),
    });
    const config = { configurable: { thread_id: "team" } };
    let subAgentsBefore = new Map<string, string>();
    for (let turn = 0; turn < 32; turn++) {
      const compactionsBefore = reports.length;
      subAgentsBefore = subAgentCheckpoints(saver, "team");
      const result = await supervisor.invoke(
        { messages: [new HumanMessage({ id: `ask-${turn}`, content: `${REQUESTS[turn % 4]} (turn ${turn})` })] },
        config,
      );
      const last = (result.messages as BaseMessage[]).at(-1)!;
      expect(String(last.content)).toMatch(/^Here is what the team found: From (search_docs|run_tests)/);
      await supervisor.flush();
      if (reports.length > compactionsBefore) {
        const head = (await supervisor.getState(config)).values.messages as BaseMessage[];
        expect(validateHistory(head)).toEqual([]);
        expect(isSummaryMessage(head[0])).toBe(true);
        // Every sub-agent checkpoint that existed before the compaction is still there, unchanged.
        const subAgentsAfter = subAgentCheckpoints(saver, "team");
        expect(subAgentsBefore.size).toBeGreaterThan(0);
        for (const [key, value] of subAgentsBefore) expect(subAgentsAfter.get(key)).toBe(value);
      }
    }
    expect(errors).toEqual([]);
    expect(reports.length).toBeGreaterThanOrEqual(3);
    const head = (await supervisor.getState(config)).values.messages as BaseMessage[];
    expect(new TokenCounter().countMessages(head)).toBeLessThan(2_500 * 1.6);
    // The running summary still knows the first turn's request, through every fold.
    expect(getSummaryProvenance(head[0])!.firstCoveredId).toBe("ask-0");
  });

  it("keeps compacting a thread driven only through stream(), whatever the stream mode", async () => {
    for (const streamMode of ["messages", "updates", "custom"] as const) {
      const reports: CompactionReport[] = [];
      const supervisor = new CompactingSupervisor(createTeam(new MemorySaver()), {
        trigger: { tokens: 1_500 },
        onCompaction: (report) => void (report.status === "compacted" && reports.push(report)),
      });
      const config = { configurable: { thread_id: `stream-${streamMode}` }, streamMode };
      for (let turn = 0; turn < 16; turn++) {
        for await (const _ of await supervisor.stream(
          { messages: [new HumanMessage(`${REQUESTS[turn % 4]} (turn ${turn})`)] },
          config,
        ))
          void _;
        // The compaction the stream's end started lands before the next turn: a signal, not the machine's speed.
        await supervisor.flush();
      }
      await supervisor.flush();
      expect(reports.length, streamMode).toBeGreaterThanOrEqual(2);
      const head = (await supervisor.getState(config)).values.messages as BaseMessage[];
      expect(new TokenCounter().countMessages(head), streamMode).toBeLessThan(1_500 * 1.5);
    }
  });

  it("compacts first, synchronously, when the stored thread plus the input already exceed the hard limit", async () => {
    const models = scriptedModels();
    const team = createTeam(saver, models);
    const config = { configurable: { thread_id: "proactive" } };
    // The thread grew without the wrapper (another process, an older deployment...).
    for (let turn = 0; turn < 8; turn++)
      await team.invoke({ messages: [new HumanMessage(`${REQUESTS[turn % 4]} (turn ${turn})`)] }, config);
    const reports: CompactionReport[] = [];
    const supervisor = new CompactingSupervisor(team, {
      trigger: { tokens: 1_000 },
      model: modelWithHardLimit(1_200),
      summarizer: new ExtractiveSummarizer(),
      onCompaction: (report) => void (report.status === "compacted" && reports.push(report)),
    });
    models.supervisor.calls.length = 0;
    await supervisor.invoke({ messages: [new HumanMessage("A question after a long pause.")] }, config);
    expect(reports.length).toBeGreaterThanOrEqual(1);
    // The turn itself already ran on the compacted history.
    expect(isSummaryMessage(models.supervisor.calls[0]!.find((message) => isSummaryMessage(message)))).toBe(true);
    // Pass-throughs: state history and updates go to the graph unchanged.
    const history = [];
    for await (const snapshot of supervisor.getStateHistory(config, { limit: 3 })) history.push(snapshot);
    expect(history).toHaveLength(3);
    await supervisor.flush();
  });

  it("counts a plain-object input ({ role, content }) in the hardLimit check, as the message it becomes", async () => {
    const models = scriptedModels();
    const team = createTeam(saver, models);
    const config = { configurable: { thread_id: "plain-input" } };
    for (let turn = 0; turn < 8; turn++)
      await team.invoke({ messages: [new HumanMessage(`${REQUESTS[turn % 4]} (turn ${turn})`)] }, config);
    const stored = new TokenCounter().countMessages((await team.getState(config)).values.messages as BaseMessage[]);
    // The stored thread alone fits; with the ~300-token input it does not.
    const reports: CompactionReport[] = [];
    const supervisor = new CompactingSupervisor(team, {
      trigger: { tokens: stored + 50 },
      model: modelWithHardLimit(stored + 50),
      summarizer: new ExtractiveSummarizer(),
      onCompaction: (report) => void (report.status === "compacted" && reports.push(report)),
    });
    models.supervisor.calls.length = 0;
    const long = `Please review these invoice notes: ${"the refund of order ord_4471 was approved by Alice Moreau on 2026-03-14; ".repeat(15)}`;
    await supervisor.invoke({ messages: [{ role: "user", content: long }] }, config);
    expect(reports.length).toBeGreaterThanOrEqual(1);
    expect(models.supervisor.calls[0]!.some((message) => isSummaryMessage(message))).toBe(true);
    await supervisor.flush();
  });

  it("runs the first turn of a new thread whose input alone exceeds hardLimit, reporting no error", async () => {
    const errors: unknown[] = [];
    const supervisor = new CompactingSupervisor(createTeam(saver), {
      trigger: { tokens: 300 },
      model: modelWithHardLimit(300),
      summarizer: new ExtractiveSummarizer(),
      onCompactionError: (error) => void errors.push(error),
    });
    const config = { configurable: { thread_id: "new-and-long" } };
    const long = `Please review: ${"the refund of order ord_4471 was approved by Alice Moreau on 2026-03-14; ".repeat(20)}`;
    const result = await supervisor.invoke({ messages: [new HumanMessage(long)] }, config);
    expect(result.messages.length).toBeGreaterThan(1);
    await supervisor.flush();
    expect(errors.filter((error) => CompactionError.isInstance(error) && error.code === "THREAD_NOT_FOUND")).toEqual(
      [],
    );
    expect(supervisor.compactionHealth("new-and-long").consecutiveFailures).toBe(0);
  });

  it("streams chunks identical to the bare graph's, mode by mode", async () => {
    const normalize = (chunks: unknown[]) => {
      const seen = new Map<string, string>();
      return JSON.stringify(chunks).replace(
        /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|call_[0-9a-z]+_\d+|"ts":"[^"]+"|"createdAt":"[^"]+"/g,
        (match) => {
          if (!seen.has(match)) seen.set(match, `#${seen.size}`);
          return seen.get(match)!;
        },
      );
    };
    const modes: Array<Record<string, unknown>> = [
      {},
      { streamMode: "values" },
      { streamMode: "updates" },
      { streamMode: "messages" },
      { streamMode: ["values", "messages"] },
      { streamMode: "updates", subgraphs: true },
      { streamMode: ["messages", "updates"], subgraphs: true },
      { streamMode: "messages", subgraphs: true },
      { streamMode: ["updates", "custom"] },
    ];
    for (const [index, mode] of modes.entries()) {
      const run = async (wrap: boolean) => {
        const memory = new MemorySaver();
        const team = createTeam(memory);
        const target = wrap ? new CompactingSupervisor(team, { trigger: { tokens: 100_000 } }) : team;
        const chunks: unknown[] = [];
        for (const request of REQUESTS.slice(0, 2)) {
          const stream = await target.stream(
            { messages: [new HumanMessage({ id: `r-${request.length}`, content: request })] },
            { configurable: { thread_id: `modes-${index}` }, ...mode },
          );
          for await (const chunk of stream) chunks.push(chunk);
        }
        return normalize(chunks);
      };
      const bare = await run(false);
      expect(await run(true), JSON.stringify(mode)).toBe(bare);
      expect(bare.length).toBeGreaterThan(100);
    }
  });

  it("counts a streamed turn from the stream itself: the thread is never read back, and the count is exact", async () => {
    const team = createTeam(saver);
    const supervisor = new CompactingSupervisor(team, { trigger: { tokens: 100_000 } });
    const config = { configurable: { thread_id: "counted" } };
    let reads = 0;
    const getState = team.getState.bind(team);
    team.getState = (async (...args: Parameters<typeof team.getState>) => {
      reads++;
      return getState(...args);
    }) as typeof team.getState;
    await supervisor.invoke({ messages: [new HumanMessage(REQUESTS[0]!)] }, config);
    const turns: Array<() => Promise<void>> = [
      async () => {
        for await (const _ of await supervisor.stream(
          { messages: [new HumanMessage(REQUESTS[1]!)] },
          { ...config, streamMode: "messages" },
        ))
          void _;
      },
      async () => {
        for await (const _ of supervisor.streamTokens({ messages: [new HumanMessage(REQUESTS[2]!)] }, config)) void _;
      },
      async () => {
        for await (const _ of await supervisor.stream(
          { messages: [new HumanMessage(REQUESTS[3]!)] },
          { ...config, streamMode: ["updates", "messages"], subgraphs: true },
        ))
          void _;
      },
    ];
    for (const turn of turns) {
      reads = 0;
      await turn();
      await supervisor.flush();
      expect(reads).toBe(0);
      team.getState = getState;
      const stored = (await team.getState(config)).values.messages as BaseMessage[];
      team.getState = (async (...args: Parameters<typeof team.getState>) => {
        reads++;
        return getState(...args);
      }) as typeof team.getState;
      // The wrapper's count after the turn (its health says it) is the cold count of the stored thread.
      expect(supervisor.compactionHealth("counted").tokens).toBe(new TokenCounter().countMessages(stored));
    }
  });

  it("streamTokens names the speaking agent, reports the compaction after the last token, and never leaks summary tokens", async () => {
    const summaryModel = new ScriptedChatModel({
      reply: () => ({ content: "## Facts and figures\n- SUMMARYTOKEN budget 4,200 EUR" }),
    });
    // background: false: the summary this turn calls for is written before the stream ends. A 400-token trigger leaves
    // the default summary (60% of it) no room next to a team turn: compactionRatio's budget (25%) fits.
    const supervisor = new CompactingSupervisor(createTeam(saver), {
      trigger: { tokens: 400 },
      compactionRatio: 0.75,
      background: false,
      summarizer: new LlmSummarizer({ model: summaryModel }),
    });
    const config = { configurable: { thread_id: "tokens" } };
    await supervisor.invoke({ messages: [new HumanMessage(REQUESTS[0]!)] }, config);
    await supervisor.flush();
    const events: TokenStreamEvent[] = [];
    for await (const event of supervisor.streamTokens({ messages: [new HumanMessage(REQUESTS[1]!)] }, config))
      events.push(event);
    const tokens = events.filter((event) => event.type === "token");
    expect(new Set(tokens.map((event) => event.agent))).toEqual(new Set(["supervisor", "coder"]));
    expect(tokens.map((event) => event.content).join("")).toContain("From run_tests:");
    expect(JSON.stringify(events)).not.toContain('SUMMARYTOKEN"');
    expect(tokens.some((event) => event.content.includes("SUMMARYTOKEN"))).toBe(false);
    const types = events.map((event) => event.type);
    expect(types.at(-1)).toBe("done");
    expect(types.at(-2)).toBe("compaction");
    expect(types.indexOf("compaction")).toBeGreaterThan(types.lastIndexOf("token"));
    expect(summaryModel.calls.length).toBeGreaterThan(0);
  });

  it("streamTokens reports every compaction of a 40-turn run with the default options, each once", async () => {
    const landed: CompactedReport[] = [];
    const supervisor = new CompactingSupervisor(createTeam(saver), {
      trigger: { tokens: 2_500 },
      onCompaction: (report) => void (report.status === "compacted" && landed.push(report)),
    });
    const config = { configurable: { thread_id: "streamed-40" } };
    const streamed: string[] = [];
    const stream = async (turn: number) => {
      for await (const event of supervisor.streamTokens(
        { messages: [new HumanMessage(REQUESTS[turn % REQUESTS.length]!)] },
        config,
      )) {
        if (event.type === "compaction") streamed.push(event.report.newCheckpointId);
      }
    };
    for (let turn = 0; turn < 40; turn++) await stream(turn);
    // Everything started has landed; the next stream reports what landed after the last one.
    await supervisor.flush();
    const before = landed.map((report) => report.newCheckpointId);
    await stream(40);
    await supervisor.close();
    expect(before.length).toBeGreaterThan(0);
    expect(new Set(streamed).size).toBe(streamed.length);
    for (const id of before) expect(streamed).toContain(id);
    for (const id of streamed) expect(landed.map((report) => report.newCheckpointId)).toContain(id);
  });

  it("streamTokens reports a compaction that landed between turns, outside any stream, before the next turn's tokens", async () => {
    const landed: CompactionReport[] = [];
    const supervisor = new CompactingSupervisor(createTeam(saver), {
      trigger: { tokens: 600 },
      compactionRatio: 0.75,
      onCompaction: (report) => void (report.status === "compacted" && landed.push(report)),
    });
    const config = { configurable: { thread_id: "between-turns" } };
    for (const request of REQUESTS) await supervisor.invoke({ messages: [new HumanMessage(request)] }, config);
    await supervisor.flush();
    expect(landed.length).toBeGreaterThan(0);
    const types: string[] = [];
    for await (const event of supervisor.streamTokens({ messages: [new HumanMessage(REQUESTS[0]!)] }, config))
      types.push(event.type);
    expect(types[0]).toBe("compaction");
    expect(types.indexOf("token")).toBeGreaterThan(0);
    expect(types.at(-1)).toBe("done");
    // The streamed turn may start a compaction: it ends here, not in the next test's time on the shared saver.
    await supervisor.flush();
  });

  it("sends compaction events to LangChain callbacks", async () => {
    const names: string[] = [];
    class Collector extends BaseCallbackHandler {
      name = "collector";
      async handleCustomEvent(eventName: string) {
        names.push(eventName);
      }
    }
    const supervisor = new CompactingSupervisor(createTeam(saver), {
      trigger: { tokens: 600 },
      compactionRatio: 0.75,
      background: false,
    });
    const config = { configurable: { thread_id: "events" }, callbacks: [new Collector()] };
    for (const request of REQUESTS) await supervisor.invoke({ messages: [new HumanMessage(request)] }, config);
    expect(names).toContain(COMPACTION_EVENT);
  });
});

describe("CompactingSupervisor errors", () => {
  it("rejects a graph without checkpointer, a call without thread_id, and bad options, naming the value", async () => {
    const bare = createTeam(undefined as never);
    expect(() => new CompactingSupervisor(bare, { trigger: { tokens: 1000 } })).toThrow(/no checkpointer/);
    const team = createTeam(new MemorySaver());
    expect(() => new CompactingSupervisor(team, { trigger: { tokens: -5 } })).toThrow(
      /trigger.tokens must be .*got -5/,
    );
    expect(() => new CompactingSupervisor(team, { trigger: { tokens: "1000" as never } })).toThrow(
      /trigger.tokens must be .*got "1000"/,
    );
    expect(() => new CompactingSupervisor(team, { trigger: { tokens: 1000 }, compactionRatio: 2 })).toThrow(
      /compactionRatio must be .*got 2/,
    );
    expect(() => new CompactingSupervisor(team, { trigger: { tokens: 1000 }, onCompaction: "yes" as never })).toThrow(
      /onCompaction must be a function/,
    );
    const supervisor = new CompactingSupervisor(team, { trigger: { fraction: 0.5 }, model: "gpt-4o" });
    expect(supervisor.policy.tokenLimit).toBe(64_000);
    const error = await supervisor
      .invoke({ messages: [new HumanMessage("hi")] }, {})
      .catch((caught: unknown) => caught);
    expect(CompactionError.isInstance(error) && error.code).toBe("MISSING_THREAD_ID");
    const noMessages = new StateGraph(Annotation.Root({ count: Annotation<number> }))
      .addNode("inc", (state) => ({ count: (state.count ?? 0) + 1 }))
      .addEdge(START, "inc")
      .addEdge("inc", END)
      .compile({ checkpointer: new MemorySaver() });
    expect(() => new CompactingSupervisor(noMessages, { trigger: { tokens: 1000 } })).toThrow(/no "messages" channel/);
  });
});

describe("overflow recovery", () => {
  /** A model that refuses requests over `maxMessages` messages, like a provider past its window. */
  function overflowingGraph(saver: BaseCheckpointSaver, maxMessages: number | (() => number)) {
    const model = new ScriptedChatModel({ reply: (messages) => ({ content: `answer #${messages.length}` }) });
    return new StateGraph(MessagesAnnotation)
      .addNode("agent", async (state) => {
        const limit = typeof maxMessages === "function" ? maxMessages() : maxMessages;
        if (state.messages.length > limit)
          throw new ContextOverflowError(`prompt is too long: ${state.messages.length} messages`);
        return { messages: [await model.invoke(state.messages)] };
      })
      .addEdge(START, "agent")
      .addEdge("agent", END)
      .compile({ checkpointer: saver });
  }

  it("compacts harder and retries once; the input appears exactly once", async () => {
    const saver = new MemorySaver();
    const graph = overflowingGraph(saver, 20);
    const reports: CompactionReport[] = [];
    const supervisor = new CompactingSupervisor(graph, {
      trigger: { tokens: 1_000_000 },
      onCompaction: (report) => void (report.status === "compacted" && reports.push(report)),
    });
    const config = { configurable: { thread_id: "overflow" } };
    for (let turn = 0; turn < 10; turn++)
      await supervisor.invoke({ messages: [new HumanMessage(`question ${turn} about invoice ord_${turn}`)] }, config);
    const result = await supervisor.invoke({ messages: [new HumanMessage("the overflowing question")] }, config);
    expect((result.messages as BaseMessage[]).at(-1)!.content).toMatch(/^answer #/);
    const head = (await graph.getState(config)).values.messages as BaseMessage[];
    expect(head.filter((message) => message.content === "the overflowing question")).toHaveLength(1);
    expect(isSummaryMessage(head[0])).toBe(true);
    expect(validateHistory(head)).toEqual([]);
    expect(reports.at(-1)!.reason).toMatch(/recovered/);
  });

  it("surfaces a second failure to the caller unchanged", async () => {
    const saver = new MemorySaver();
    let limit = 100;
    const graph = overflowingGraph(saver, () => limit);
    const supervisor = new CompactingSupervisor(graph, { trigger: { tokens: 1_000_000 } });
    const config = { configurable: { thread_id: "overflow-twice" } };
    for (let turn = 0; turn < 8; turn++)
      await supervisor.invoke({ messages: [new HumanMessage(`question ${turn}`)] }, config);
    limit = 0;
    const error = await supervisor
      .invoke({ messages: [new HumanMessage("too much")] }, config)
      .catch((caught: unknown) => caught);
    expect(ContextOverflowError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/prompt is too long/);
  });

  it("passes other errors through untouched", async () => {
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("agent", async () => {
        throw new Error("tool backend down");
      })
      .addEdge(START, "agent")
      .addEdge("agent", END)
      .compile({ checkpointer: new MemorySaver() });
    const supervisor = new CompactingSupervisor(graph, { trigger: { tokens: 1000 } });
    await expect(
      supervisor.invoke({ messages: [new AIMessage("x")] }, { configurable: { thread_id: "e" } }),
    ).rejects.toThrow("tool backend down");
  });
});
