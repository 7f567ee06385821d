/**
 * compactionNode, the in-graph step as a node: the behaviour suite as createReactAgent's preModelHook and as a node
 * of a hand-written StateGraph; on createSupervisor's supervisor, a team thread that loses nothing; bad options.
 */
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { createReactAgent, ToolNode } from "@langchain/langgraph/prebuilt";
import { createSupervisor } from "@langchain/langgraph-supervisor";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSummaryProvenance } from "../../src/messages/summary-message.js";
import { validateHistory } from "../../src/messages/validate.js";
import { readTranscript } from "../../src/recall/transcript.js";
import {
  compactionNode,
  type CompactionNode,
  type CompactionNodeOptions,
} from "../../src/runtimes/in-graph/compaction-node.js";
import { CompactionAgentState } from "../../src/runtimes/in-graph/messages-reducer.js";
import { isSummaryMessage } from "../../src/messages/summary-message.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import type { InGraphOptions } from "../../src/runtimes/in-graph/in-graph-compactor.js";
import { compactionMiddleware } from "../../src/runtimes/in-graph/compaction-middleware.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { createTestAgent, lookupPolicy, lookupTool } from "../support/agents.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";
import { inGraphBehaviour } from "../support/in-graph-suite.js";
import { createStore, type TestStore } from "../support/savers.js";
import { agentPolicy, runTests, scriptedModels, searchDocs } from "../support/team.js";
import { modelWithHardLimit } from "../support/window.js";
import { listenForWarnings } from "../support/warnings.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";

const PROMPT = "You are the billing assistant.";

inGraphBehaviour({
  name: "compactionNode as createReactAgent's preModelHook",
  kinds: ["memory", "sqlite"],
  build: (saver, options) => {
    const node = options ? compactionNode({ ...options, prompt: PROMPT, tools: [lookupTool] }) : undefined;
    const agent = createReactAgent({
      llm: new ScriptedChatModel({ reply: lookupPolicy }),
      tools: [lookupTool],
      checkpointer: saver,
      prompt: PROMPT,
      ...(node ? { preModelHook: node } : {}),
    });
    return Object.assign(agent, { idle: async () => await node?.idle() });
  },
});

/** A ReAct loop written by hand: [compact →] model → tools → [compact →] model … */
function handWritten(saver: BaseCheckpointSaver, options: InGraphOptions | undefined) {
  const model = new ScriptedChatModel({ reply: lookupPolicy }).bindTools([lookupTool]);
  const node = options ? compactionNode({ ...options, tools: [lookupTool] }) : undefined;
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("compact", node ?? (() => ({})))
    .addNode("model", async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addNode("tools", new ToolNode([lookupTool]))
    .addEdge(START, "compact")
    .addEdge("compact", "model")
    .addConditionalEdges("model", (state) =>
      (state.messages.at(-1) as { tool_calls?: unknown[] }).tool_calls?.length ? "tools" : END,
    )
    .addEdge("tools", "compact");
  return Object.assign(graph.compile({ checkpointer: saver }), { idle: async () => await node?.idle() });
}

inGraphBehaviour({
  name: "compactionNode in a hand-written StateGraph",
  kinds: ["memory", "sqlite"],
  build: handWritten,
});

describe("compactionNode on createSupervisor's supervisor (sqlite)", () => {
  let store: TestStore;
  beforeAll(async () => void (store = await createStore("sqlite")));
  afterAll(async () => await store.close());

  const PROMPT_TEAM = "You supervise a researcher and a coder.";
  function team(node: CompactionNode, withSchema: boolean) {
    const models = scriptedModels();
    const researcher = createReactAgent({
      llm: new ScriptedChatModel({ reply: agentPolicy("search_docs", "query") }),
      tools: [searchDocs],
      name: "researcher",
      prompt: "You research.",
    });
    const coder = createReactAgent({
      llm: new ScriptedChatModel({ reply: agentPolicy("run_tests", "target") }),
      tools: [runTests],
      name: "coder",
      prompt: "You code.",
    });
    return createSupervisor({
      agents: [researcher, coder],
      llm: models.supervisor,
      prompt: PROMPT_TEAM,
      preModelHook: node,
      ...(withSchema ? { stateSchema: CompactionAgentState } : {}),
    }).compile({ checkpointer: store.saver });
  }
  const ask = (index: number) => ({
    messages: [
      new HumanMessage({
        id: `team-${index}`,
        content:
          index % 2 === 0
            ? `Find the refund rule for case ${index}, please.`
            : `Fix the rounding bug in module ${index}.`,
      }),
    ],
  });

  it("with CompactionAgentState: the team's head shrinks, holds one summary, and every removed message is in the transcript once", async () => {
    const compactions: number[] = [];
    const graph = team(
      compactionNode({
        trigger: { tokens: 1_500 },
        env: {},
        prompt: PROMPT_TEAM,
        onCompaction: (event) => void compactions.push(event.messagesAfter),
      }),
      true,
    );
    const config = { configurable: { thread_id: "team" } };
    const seen = new Map<string, BaseMessage>();
    const counter = new TokenCounter({ model: "gpt-4o" });
    const sizes: number[] = [];
    for (let index = 0; index < 20; index++) {
      const result = await graph.invoke(ask(index), config);
      for (const message of result.messages)
        if (message.id && !getSummaryProvenance(message) && !seen.has(message.id)) seen.set(message.id, message);
      const head = (await graph.getState(config)).values.messages as BaseMessage[];
      expect(head.filter((message) => isSummaryMessage(message)).length).toBeLessThanOrEqual(1);
      sizes.push(counter.countMessages(head));
    }
    expect(compactions.length).toBeGreaterThanOrEqual(2);
    const head = (await graph.getState(config)).values.messages as BaseMessage[];
    expect(validateHistory(head)).toEqual([]);
    expect(isSummaryMessage(head[0])).toBe(true);
    // The head shrank at each compaction and stays near the limit (the supervisor's context: the head and its prompt).
    expect(Math.max(...sizes.slice(-8))).toBeLessThan(1_500 * 1.5);
    const page = await readTranscript(store.saver, config, { limit: 10_000 });
    const transcribed = page.messages.filter((line) => line.source === "transcript").map((line) => line.message.id);
    expect(new Set(transcribed).size).toBe(transcribed.length);
    for (const id of transcribed) expect(head.some((message) => message.id === id)).toBe(false);
    expect(page.messages.filter((line) => line.source !== "summary").map((line) => line.message.id)).toEqual([
      ...seen.keys(),
    ]);
  });

  it("without it: said at the first call, and again at every call whose head kept what a compaction removed; no such compaction is reported as one", async () => {
    const errors: Array<{ turn: number; message: string }> = [];
    const compactedAt: number[] = [];
    const warnedAt: number[] = [];
    let turn = 0;
    const listen = (warning: Error & { code?: string }) =>
      void (warning.code === "LANGGRAPH_COMPACTION_CANNOT_COMPACT" && warnedAt.push(turn));
    process.on("warning", listen);
    const config = { configurable: { thread_id: "team-no-schema" } };
    let graph: ReturnType<typeof team> | undefined;
    try {
      // A hard limit the team crosses: a call there waits for the summary, so compactions land whatever the load.
      graph = team(
        compactionNode({
          trigger: { tokens: 1_500 },
          model: modelWithHardLimit(2_000),
          summarizer: new ExtractiveSummarizer(),
          env: {},
          prompt: PROMPT_TEAM,
          onCompaction: () => void compactedAt.push(turn),
          onCompactionError: (error) =>
            void (
              (error as { parameter?: string }).parameter === "stateSchema" &&
              errors.push({ turn, message: (error as Error).message })
            ),
        }),
        false,
      );
      for (turn = 0; turn < 20; turn++) {
        await graph.invoke(ask(turn), config);
        // Warnings are emitted on the next tick.
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      process.off("warning", listen);
    }
    // At the first call, before any compaction: the subgraph has not the schema.
    expect(errors[0]).toMatchObject({ turn: 0, message: expect.stringMatching(/CompactionAgentState/) });
    expect(warnedAt[0]).toBe(0);
    // Then at every call whose state holds messages beside the summary covering them: not once, but as long as it lasts.
    const merging = errors.filter((error) => /beside the compaction summary that covers them/.test(error.message));
    expect(merging.length).toBeGreaterThan(3);
    expect(warnedAt.length).toBeGreaterThan(3);
    // No compaction reported from the first call that showed the head kept what one removed.
    expect(compactedAt.length).toBeGreaterThan(0);
    expect(compactedAt.filter((at) => at >= merging[0]!.turn)).toEqual([]);
    // The head did keep it: every summary's covered messages are still there.
    const head = (await graph!.getState(config)).values.messages as BaseMessage[];
    expect(head.filter((message) => isSummaryMessage(message)).length).toBeGreaterThan(1);
  });

  it("nothing said where nothing is wrong: the team with the schema, a createReactAgent alone, a worker agent given the schema", async () => {
    const said: unknown[] = [];
    const warnings = listenForWarnings();
    const options = {
      trigger: { tokens: 1_500 },
      model: modelWithHardLimit(2_000),
      summarizer: new ExtractiveSummarizer(),
      env: {},
      onCompactionError: (error: unknown) => void said.push(error),
    };
    const config = (thread: string) => ({ configurable: { thread_id: thread } });
    const graph = team(compactionNode({ ...options, prompt: PROMPT_TEAM }), true);
    // The check runs at every call: a few turns of each say whether it speaks where nothing is wrong.
    for (let index = 0; index < 4; index++) await graph.invoke(ask(index), config("team-quiet"));
    const alone = createReactAgent({
      llm: new ScriptedChatModel({ reply: lookupPolicy }),
      tools: [lookupTool],
      checkpointer: store.saver,
      preModelHook: compactionNode(options),
    });
    for (let index = 0; index < 4; index++) await alone.invoke(ask(index), config("alone-quiet"));
    const models = scriptedModels();
    const researcher = createReactAgent({
      llm: new ScriptedChatModel({ reply: agentPolicy("search_docs", "query") }),
      tools: [searchDocs],
      name: "researcher",
      prompt: "You research.",
      stateSchema: CompactionAgentState,
      preModelHook: compactionNode(options),
    });
    const coder = createReactAgent({
      llm: new ScriptedChatModel({ reply: agentPolicy("run_tests", "target") }),
      tools: [runTests],
      name: "coder",
      prompt: "You code.",
    });
    const workers = createSupervisor({
      agents: [researcher, coder],
      llm: models.supervisor,
      prompt: PROMPT_TEAM,
    }).compile({ checkpointer: store.saver });
    for (let index = 0; index < 3; index++) await workers.invoke(ask(index * 2), config("worker-quiet"));
    expect(said).toEqual([]);
    const heard = await warnings.heard();
    warnings.stop();
    expect(heard.filter((warning) => warning.code === "CANNOT_COMPACT")).toEqual([]);
  });
});

describe("compactionNode refuses bad options and bad state", () => {
  it("names the option and its value", async () => {
    expect(() => compactionNode({ env: {} } as CompactionNodeOptions)).toThrow(/needs a trigger/);
    expect(() =>
      compactionNode({ trigger: { tokens: 900 }, env: {}, tools: "lookup" as unknown as unknown[] }),
    ).toThrow(/tools.*lookup/);
    expect(() => compactionNode({ trigger: { tokens: 900 }, env: {}, prompt: 42 as unknown as string })).toThrow(
      /prompt.*42/,
    );
    await expect(
      compactionNode({ trigger: { tokens: 900 }, env: {} })({ messages: "hi" as unknown as BaseMessage[] }),
    ).rejects.toThrow(/state\.messages/);
  });
});

describe("the in-graph forms refuse bad options as the wrapper does", () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ["a negative limit", { trigger: { tokens: -5 } }],
    ["a limit given as text", { trigger: { tokens: "1000" } }],
    ["a ratio above 1", { trigger: { tokens: 1000 }, compactionRatio: 2 }],
    ["a model that is not one", { trigger: { tokens: 1000 }, model: 5 }],
    ["a summarizer that is not one", { trigger: { tokens: 1000 }, summarizer: "extractive" }],
    ["a listener that is not a function", { trigger: { tokens: 1000 }, onCompaction: "yes" }],
    ["an error listener that is not a function", { trigger: { tokens: 1000 }, onCompactionError: 42 }],
  ];
  const caught = (build: () => unknown) => {
    try {
      build();
    } catch (error) {
      const { code, parameter, message } = error as { code?: string; parameter?: string; message: string };
      return { code, parameter, message };
    }
    return undefined;
  };
  for (const [label, options] of cases) {
    it(`${label}: the same CompactionError`, async () => {
      const store = await createStore("memory");
      const { agent } = createTestAgent(store.saver);
      const wrapper = caught(() => new CompactingSupervisor(agent, { env: {}, ...options } as never));
      expect(wrapper).toMatchObject({ code: "INVALID_ARGUMENT" });
      expect(caught(() => compactionMiddleware({ env: {}, ...options } as never))).toEqual(wrapper);
      expect(caught(() => compactionNode({ env: {}, ...options } as never))).toEqual(wrapper);
      await store.close();
    });
  }
});
