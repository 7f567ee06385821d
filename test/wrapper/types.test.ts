/**
 * The wrapper carries the wrapped graph's own types: code that compiles against `graph.invoke` / `graph.stream`
 * compiles against the wrapper, for a StateGraph, createReactAgent, createSupervisor and LangChain's createAgent.
 * The assertions are checked by `npm run typecheck` (tsc over the tests, in CI); at run time they are no-ops, and
 * one small stream per graph kind runs for real.
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph-checkpoint";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { createSupervisor } from "@langchain/langgraph-supervisor";
import { createAgent } from "langchain";
import { describe, expect, expectTypeOf, it } from "vitest";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";

const model = () => new ScriptedChatModel({ reply: () => ({ content: "The total is 4,200 EUR." }) });

function stateGraph() {
  return new StateGraph(MessagesAnnotation)
    .addNode("reply", async () => ({ messages: [new AIMessage("The total is 4,200 EUR.")] }))
    .addEdge(START, "reply")
    .addEdge("reply", END)
    .compile({ checkpointer: new MemorySaver() });
}

describe("the wrapper's types are the graph's", () => {
  it("StateGraph: invoke, and stream by mode (single, array, subgraphs)", async () => {
    const graph = stateGraph();
    const wrapper = new CompactingSupervisor(graph, { trigger: { tokens: 10_000 } });
    const config = { configurable: { thread_id: "types-state" } };
    const input = { messages: [new HumanMessage("What is the total?")] };

    expectTypeOf(wrapper.invoke).toEqualTypeOf(graph.invoke);
    expectTypeOf(wrapper.stream).toEqualTypeOf(graph.stream);
    const result = await wrapper.invoke(input, config);
    expectTypeOf(result.messages).toEqualTypeOf<BaseMessage[]>();

    for await (const [message, meta] of await wrapper.stream(input, { ...config, streamMode: "messages" })) {
      expectTypeOf(message).toEqualTypeOf<BaseMessage>();
      expect(typeof meta).toBe("object");
    }
    for await (const chunk of await wrapper.stream(input, { ...config, streamMode: "values" })) {
      expectTypeOf(chunk.messages).toEqualTypeOf<BaseMessage[]>();
      expect(Array.isArray(chunk.messages)).toBe(true);
    }
    for await (const [mode, payload] of await wrapper.stream(input, {
      ...config,
      streamMode: ["updates", "messages"],
    })) {
      expectTypeOf(mode).toEqualTypeOf<"updates" | "messages">();
      expect(payload).toBeDefined();
    }
    for await (const [namespace, chunk] of await wrapper.stream(input, {
      ...config,
      streamMode: "updates",
      subgraphs: true,
    })) {
      expectTypeOf(namespace).toEqualTypeOf<string[]>();
      expect(chunk).toBeDefined();
    }
  });

  it("createReactAgent, createSupervisor and createAgent keep their own stream types", async () => {
    const react = createReactAgent({ llm: model(), tools: [], checkpointer: new MemorySaver() });
    const reactWrapper = new CompactingSupervisor(react, { trigger: { tokens: 10_000 } });
    expectTypeOf(reactWrapper.stream).toEqualTypeOf(react.stream);
    expectTypeOf(reactWrapper.invoke).toEqualTypeOf(react.invoke);

    const team = createSupervisor({
      agents: [createReactAgent({ llm: model(), tools: [], name: "worker" })],
      llm: model(),
    }).compile({ checkpointer: new MemorySaver() });
    const teamWrapper = new CompactingSupervisor(team, { trigger: { tokens: 10_000 } });
    expectTypeOf(teamWrapper.stream).toEqualTypeOf(team.stream);

    const agent = createAgent({ model: model(), tools: [], checkpointer: new MemorySaver() });
    const agentWrapper = new CompactingSupervisor(agent, { trigger: { tokens: 10_000 } });
    expectTypeOf(agentWrapper.invoke).toEqualTypeOf(agent.invoke);
    expectTypeOf(agentWrapper.stream).toEqualTypeOf(agent.stream);

    const config = { configurable: { thread_id: "types-agent" } };
    for await (const [message] of await agentWrapper.stream(
      { messages: [new HumanMessage("What is the total?")] },
      { ...config, streamMode: "messages" },
    )) {
      expectTypeOf(message).toEqualTypeOf<BaseMessage>();
    }
    const state = await agentWrapper.invoke({ messages: [new HumanMessage("And the fees?")] }, config);
    expect(state.messages.length).toBe(4);
  });
});
