/**
 * A new message that reuses the id of a message compaction took out of the state is new content, not a stale copy of
 * the compacted one: the in-graph step keeps it. The model receives it, and after the turn it is in the head or in
 * the transcript as it was sent. (A stale copy — the same message as the transcript holds it — is still dropped:
 * stale-run-input.test.ts.) Both in-graph forms: the createAgent middleware and createReactAgent's preModelHook.
 */
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { createAgent } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storedForm, storedFormOfSerialized } from "../../src/messages/stored-form.js";
import { getSummaryProvenance } from "../../src/messages/summary-message.js";
import { compactionMiddleware } from "../../src/runtimes/in-graph/compaction-middleware.js";
import { compactionNode } from "../../src/runtimes/in-graph/compaction-node.js";
import { threadStoreFor } from "../../src/store/thread-store.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";
import { createStore, type TestStore } from "../support/savers.js";

const LIMIT = 600;

type Agent = {
  invoke(input: { messages: BaseMessage[] }, config: { configurable: { thread_id: string } }): Promise<unknown>;
};

const FORMS: Array<[string, (store: TestStore, model: ScriptedChatModel) => Agent]> = [
  [
    "the createAgent middleware",
    (store, model) =>
      createAgent({
        model,
        tools: [],
        checkpointer: store.saver,
        middleware: [compactionMiddleware({ trigger: { tokens: LIMIT }, background: false, env: {} })],
      }),
  ],
  [
    "createReactAgent's preModelHook",
    (store, model) =>
      createReactAgent({
        llm: model,
        tools: [],
        checkpointer: store.saver,
        preModelHook: compactionNode({ trigger: { tokens: LIMIT }, background: false, env: {} }),
      }),
  ],
];

describe.each(FORMS)("a new message under a compacted message's id, %s", (_, build) => {
  let store: TestStore;
  beforeAll(async () => void (store = await createStore("sqlite")));
  afterAll(async () => await store.close());

  it("reaches the model and is kept in the head or the transcript", async () => {
    const seen: BaseMessage[][] = [];
    const model = new ScriptedChatModel({
      reply: (messages) => {
        seen.push([...messages]);
        const asked = String(messages.at(-1)?.content ?? "");
        return {
          content: `Answer ${messages.length}: ${asked.slice(0, 40)} — parcel in depot ${messages.length % 7}, row ${messages.length * 3}, signed for by the clerk on duty.`,
        };
      },
    });
    const agent = build(store, model);
    const thread = `reused-${Math.random().toString(36).slice(2)}`;
    const config = { configurable: { thread_id: thread } };
    let covered: string | undefined;
    for (let turn = 0; turn < 40 && covered === undefined; turn++) {
      await agent.invoke(
        {
          messages: [
            new HumanMessage({
              id: `ask-${turn}`,
              content: `Question ${turn}: where is parcel PX-${turn}, and who signed for it at address ${turn * 13} Elm Street?`,
            }),
          ],
        },
        config,
      );
      const head = (await threadStoreFor(store.saver).readHead(thread))!.messages;
      covered = head.flatMap((message) => getSummaryProvenance(message)?.coveredIds ?? []).find((id) => id === "ask-0");
    }
    expect(covered, "a compaction covered the first question").toBe("ask-0");

    const reused = new HumanMessage({
      id: "ask-0",
      content: "A new question under an old id: is the refund RF-77 paid?",
    });
    seen.length = 0;
    await agent.invoke({ messages: [reused] }, config);

    expect(seen.some((messages) => messages.some((message) => String(message.content).includes("RF-77")))).toBe(true);
    const threads = threadStoreFor(store.saver);
    const head = (await threads.readHead(thread))!.messages;
    const inHead = head.some((message) => message.id === "ask-0" && storedForm(message) === storedForm(reused));
    const entry = (await threads.recall.entries(thread)).find((candidate) => candidate.messageId === "ask-0");
    const inTranscript = [entry, ...(entry?.versions ?? [])].some(
      (version) => version?.message !== undefined && storedFormOfSerialized(version.message) === storedForm(reused),
    );
    expect(inHead || inTranscript).toBe(true);
  });
});
