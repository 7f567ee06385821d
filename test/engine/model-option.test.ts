/**
 * `model` means on every runtime what it means to langchain's summarization: the chat model the summaries come from.
 * A chat model given as `model` writes the summaries of the wrapper, the middleware, the node, the worker and
 * HistoryManager (`summarizer` wins over it), and its name picks the tokenizer; `"provider:model"` names one to build
 * with langchain's `initChatModel`; a bare name picks only the tokenizer.
 */
import { HumanMessage } from "@langchain/core/messages";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { createAgent } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { compactionMiddleware } from "../../src/runtimes/in-graph/compaction-middleware.js";
import { compactionNode } from "../../src/runtimes/in-graph/compaction-node.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { CompactionWorker } from "../../src/runtimes/worker/compaction-worker.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";
import { createStore, type TestStore } from "../support/savers.js";

let store: TestStore;
beforeAll(async () => void (store = await createStore("sqlite")));
afterAll(async () => await store.close());

const LIMIT = 600;
const agentModel = () =>
  new ScriptedChatModel({
    reply: (messages) => ({
      content: `Noted: ${String(messages.at(-1)?.content)}. The invoice total stays 4,200 EUR; Alice Moreau approved it on 2026-03-14.`,
    }),
  });
/** The summarizer's chat model: records its calls, answers with a summary. */
const summaryModel = () =>
  new ScriptedChatModel({
    modelName: "gpt-4o-mini",
    reply: () => ({
      content: "Goals: invoices. Facts: INV-100 total 4,200 EUR, approved by Alice Moreau on 2026-03-14.",
    }),
  });
const ask = (turn: number) => ({
  messages: [
    new HumanMessage({
      id: `ask-${turn}`,
      content: `Question ${turn} about invoice INV-${100 + turn}: who approved it, and when was it paid?`,
    }),
  ],
});

describe("model is the summarizer's chat model on every runtime", () => {
  /** Each runtime over the scripted agent, with `model` as the summarizer's: how to run a turn, and its policy. */
  const runtimes: Array<
    [
      string,
      (model: ScriptedChatModel) => {
        invoke(input: ReturnType<typeof ask>, config: object): Promise<unknown>;
        policy: { model: string };
      },
    ]
  > = [
    [
      "the wrapper",
      (model) =>
        new CompactingSupervisor(createReactAgent({ llm: agentModel(), tools: [], checkpointer: store.saver }), {
          trigger: { tokens: LIMIT },
          model,
          background: false,
        }),
    ],
    [
      "the middleware",
      (model) => {
        const middleware = compactionMiddleware({ trigger: { tokens: LIMIT }, model, background: false });
        return {
          invoke: (input, config) =>
            createAgent({ model: agentModel(), tools: [], checkpointer: store.saver, middleware: [middleware] }).invoke(
              input,
              config,
            ),
          policy: middleware.policy,
        };
      },
    ],
    [
      "the node",
      (model) => {
        const node = compactionNode({ trigger: { tokens: LIMIT }, model, background: false });
        return {
          invoke: (input, config) =>
            createReactAgent({ llm: agentModel(), tools: [], checkpointer: store.saver, preModelHook: node }).invoke(
              input,
              config,
            ),
          policy: node.policy,
        };
      },
    ],
  ];

  it.each(runtimes)("%s", async (name, build) => {
    const model = summaryModel();
    const runtime = build(model);
    for (let turn = 0; turn < 12; turn++) await runtime.invoke(ask(turn), { configurable: { thread_id: name } });
    expect(model.calls.length).toBeGreaterThan(0);
    expect(runtime.policy.model).toBe("gpt-4o-mini");
  });

  it("the wrapper says which summarizer it chose", () => {
    const supervisor = new CompactingSupervisor(
      createReactAgent({ llm: agentModel(), tools: [], checkpointer: store.saver }),
      { trigger: { tokens: LIMIT }, model: summaryModel() },
    );
    expect(supervisor.summarizerChoice).toMatchObject({ source: "model", name: "llm", model: "gpt-4o-mini" });
  });

  it("the worker and HistoryManager", async () => {
    const agent = createReactAgent({ llm: agentModel(), tools: [], checkpointer: store.saver });
    for (let turn = 0; turn < 12; turn++) await agent.invoke(ask(turn), { configurable: { thread_id: "stored" } });
    const model = summaryModel();
    const manager = new HistoryManager({ checkpointer: store.saver, trigger: { tokens: LIMIT }, model });
    expect(manager.summarizer).toMatchObject({ name: "llm", model: "gpt-4o-mini" });
    expect((await manager.compactThread({ configurable: { thread_id: "stored" } })).status).toBe("compacted");
    expect(model.calls.length).toBeGreaterThan(0);
    const worker = new CompactionWorker(store.saver, { trigger: { tokens: LIMIT }, model: summaryModel(), idleMs: 0 });
    expect(worker.policy.model).toBe("gpt-4o-mini");
  });

  it("summarizer wins over model for the summaries; model still picks the tokenizer", () => {
    const manager = new HistoryManager({
      checkpointer: store.saver,
      trigger: { tokens: LIMIT },
      model: summaryModel(),
      summarizer: new ExtractiveSummarizer(),
    });
    expect(manager.summarizer.name).toBe("extractive");
    expect(manager.policy.model).toBe("gpt-4o-mini");
  });

  it("\"provider:model\" names a chat model to build (langchain's initChatModel), its name the tokenizer's; a bare name picks only the tokenizer", () => {
    const named = new HistoryManager({
      checkpointer: store.saver,
      trigger: { tokens: LIMIT },
      model: "openai:gpt-4o-mini",
    });
    expect(named.summarizer).toMatchObject({ name: "llm", model: "openai:gpt-4o-mini" });
    expect(named.policy.model).toBe("gpt-4o-mini");
    const bare = new HistoryManager({
      checkpointer: store.saver,
      trigger: { tokens: LIMIT },
      model: "gpt-4o-mini",
      env: {},
    });
    expect(bare.summarizer.name).toBe("extractive");
    expect(bare.policy.model).toBe("gpt-4o-mini");
    // An OpenAI fine-tuned model's name ("ft:…") is a name, not a provider.
    const tuned = new HistoryManager({
      checkpointer: store.saver,
      trigger: { tokens: LIMIT },
      model: "ft:gpt-4o-mini:acme::abc123",
      env: {},
    });
    expect(tuned.summarizer.name).toBe("extractive");
    expect(tuned.policy.model).toBe("ft:gpt-4o-mini:acme::abc123");
  });
});
