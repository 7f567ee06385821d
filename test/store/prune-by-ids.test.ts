/**
 * A prune planned from the store's tables (engine/prune-plan.ts), on a SQLite file and on Postgres: a list that goes
 * and is, as stored, the start of the oldest kept one loses nothing, so the prune reads no checkpoint and deletes what
 * the plan of record would. Anything else — a message edited in place, a compaction, a removal, an `Overwrite` of
 * the channel — sends the prune to the plan of record, which reads the checkpoints and writes what only the deleted
 * ones held to the transcript.
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { MessagesAnnotation, Overwrite, START, StateGraph } from "@langchain/langgraph";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { pruneThread } from "../../src/engine/prune.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";
import { readTranscript } from "../../src/recall/transcript.js";
import { createStore, type SaverKind, type TestStore } from "../support/savers.js";

for (const kind of ["sqlite", "postgres"] satisfies SaverKind[]) {
  describe(`on ${kind}`, () => {
    /** The reads of whole checkpoints (`list`), which a prune planned from the tables never makes. */
    let lists: { readonly count: number };
    let store: TestStore;
    let saver: BaseCheckpointSaver;
    beforeEach(async () => {
      store = await createStore(kind);
      saver = store.saver;
      const spy = vi.spyOn(saver, "list");
      lists = {
        get count() {
          return spy.mock.calls.length;
        },
      };
    });
    afterEach(async () => await store.close());

    const config = (thread: string): RunnableConfig => ({ configurable: { thread_id: thread } });

    function echoGraph() {
      return new StateGraph(MessagesAnnotation)
        .addNode("agent", async (state) => ({
          messages: [
            new AIMessage({
              id: `reply-${state.messages.length}`,
              content: `Noted: ${String(state.messages.at(-1)?.content)}`,
            }),
          ],
        }))
        .addEdge(START, "agent")
        .compile({ checkpointer: saver });
    }

    async function transcriptOf(thread: string): Promise<Array<[string | undefined, string]>> {
      const page = await readTranscript(saver, config(thread), { limit: 10_000 });
      // Each line's message, then the message's other versions (an edit that kept its id).
      return page.messages.flatMap((line) =>
        [line.message, ...(line.versions ?? [])].map((message): [string | undefined, string] => [
          message.id,
          String(message.content),
        ]),
      );
    }

    it("a createReactAgent's turns, its replies stored once with an undefined name and then without it: each prune reads no checkpoint", async () => {
      const model = new ScriptedChatModel({ reply: () => ({ content: "The invoice total is 4,200 EUR." }) });
      const agent = createReactAgent({ llm: model, tools: [], checkpointer: saver });
      for (let turn = 0; turn < 4; turn++) {
        await agent.invoke(
          { messages: [new HumanMessage({ id: `q-${turn}`, content: `Question ${turn}` })] },
          config("react"),
        );
        const before = lists.count;
        const report = await pruneThread(saver, config("react"), { keep: 2 });
        expect(lists.count - before).toBe(0);
        expect(report).toMatchObject({ kept: 2, backfilled: 0 });
      }
      const head = (await agent.getState(config("react"))).values.messages as BaseMessage[];
      expect(head.map((message) => message.id).filter((id) => id?.startsWith("q-"))).toEqual([
        "q-0",
        "q-1",
        "q-2",
        "q-3",
      ]);
      expect(head).toHaveLength(8);
    });

    it("turns that only append: each prune reads no checkpoint, keeps the newest, and the thread's messages are all in the head", async () => {
      const graph = echoGraph();
      const sent: string[] = [];
      for (let turn = 0; turn < 8; turn++) {
        await graph.invoke(
          { messages: [new HumanMessage({ id: `ask-${turn}`, content: `Where is parcel PX-${turn}?` })] },
          config("append"),
        );
        sent.push(`ask-${turn}`, `reply-${2 * turn + 1}`);
        const before = lists.count;
        const report = await pruneThread(saver, config("append"), { keep: 2 });
        expect(lists.count - before).toBe(0);
        expect(report).toMatchObject({ status: "pruned", kept: 2, backfilled: 0 });
        let stored = 0;
        for await (const _ of saver.list({ configurable: { thread_id: "append", checkpoint_ns: "" } })) stored++;
        expect(stored).toBe(2);
      }
      const head = (await graph.getState(config("append"))).values.messages as BaseMessage[];
      expect(head.map((message) => message.id)).toEqual(sent);
    });

    it("no more checkpoints than kept: nothing to delete, said without reading one", async () => {
      const graph = echoGraph();
      await graph.invoke(
        { messages: [new HumanMessage({ id: "ask-0", content: "Where is parcel PX-0?" })] },
        config("few"),
      );
      const before = lists.count;
      const report = await pruneThread(saver, config("few"), { keep: 50 });
      expect(lists.count - before).toBe(0);
      expect(report).toMatchObject({ status: "nothing", removed: 0 });
      expect(report.kept).toBe(report.checkpointsBefore);
    });

    it("a message edited in place: the prune reads the checkpoints, and the transcript keeps the version the head lost", async () => {
      const graph = echoGraph();
      for (let turn = 0; turn < 3; turn++)
        await graph.invoke(
          { messages: [new HumanMessage({ id: `ask-${turn}`, content: `Where is parcel PX-${turn}?` })] },
          config("edited"),
        );
      await pruneThread(saver, config("edited"), { keep: 2 });
      // The application rewrites an earlier reply under its id (same place in the list, other content).
      await graph.updateState(config("edited"), {
        messages: [new AIMessage({ id: "reply-1", content: "Noted, corrected: PX-0 is in Leeds." })],
      });
      const before = lists.count;
      const report = await pruneThread(saver, config("edited"), { keep: 1 });
      expect(lists.count - before).toBeGreaterThan(0);
      expect(report).toMatchObject({ status: "pruned", kept: 1 });
      expect(report.backfilled).toBeGreaterThan(0);
      const transcript = await transcriptOf("edited");
      expect(transcript).toContainEqual(["reply-1", "Noted: Where is parcel PX-0?"]);
      const head = (await graph.getState(config("edited"))).values.messages as BaseMessage[];
      expect(head.find((message) => message.id === "reply-1")?.content).toBe("Noted, corrected: PX-0 is in Leeds.");
    });

    it("a graph step that writes over an earlier message (its id): the list grows by less than the step wrote, and the transcript keeps the old version", async () => {
      // Each turn's step corrects the previous reply in place and adds its own.
      const graph = new StateGraph(MessagesAnnotation)
        .addNode("agent", async (state) => {
          const replies = state.messages.filter((message) => message.getType() === "ai");
          const corrected = replies.at(-1)
            ? [new AIMessage({ id: replies.at(-1)!.id, content: `${String(replies.at(-1)!.content)} (checked)` })]
            : [];
          return {
            messages: [
              ...corrected,
              new AIMessage({
                id: `reply-${state.messages.length}`,
                content: `Noted: ${String(state.messages.at(-1)?.content)}`,
              }),
            ],
          };
        })
        .addEdge(START, "agent")
        .compile({ checkpointer: saver });
      for (let turn = 0; turn < 4; turn++) {
        await graph.invoke(
          { messages: [new HumanMessage({ id: `ask-${turn}`, content: `Where is parcel PX-${turn}?` })] },
          config("rewritten"),
        );
        const before = lists.count;
        const report = await pruneThread(saver, config("rewritten"), { keep: 1 });
        if (turn > 0) {
          expect(lists.count - before).toBeGreaterThan(0);
          expect(report.backfilled).toBeGreaterThan(0);
        }
      }
      expect(await transcriptOf("rewritten")).toContainEqual(["reply-1", "Noted: Where is parcel PX-0?"]);
    });

    it("the same plan as the plan of record on a thread of turns (what it keeps and deletes)", async () => {
      const graph = echoGraph();
      for (let turn = 0; turn < 5; turn++)
        await graph.invoke(
          { messages: [new HumanMessage({ id: `ask-${turn}`, content: `Turn ${turn}` })] },
          config("same"),
        );
      const dry = await pruneThread(saver, config("same"), { keep: 3, dryRun: true });
      const ids: string[] = [];
      for await (const tuple of saver.list({ configurable: { thread_id: "same", checkpoint_ns: "" } }))
        ids.push(tuple.checkpoint.id);
      expect(dry).toMatchObject({
        status: "dry-run",
        checkpointsBefore: ids.length,
        kept: 3,
        removed: ids.length - 3,
        backfilled: 0,
        headCheckpointId: ids[0],
      });
    });

    /** A graph whose fourth turn replaces the channel with `Overwrite` (how LangGraph documents replacing a value). */
    function overwritingGraph(rewrite: (messages: BaseMessage[], replies: BaseMessage[]) => BaseMessage[]) {
      return new StateGraph(MessagesAnnotation)
        .addNode("agent", async (state) => {
          const replies = [
            new AIMessage({
              id: `reply-${state.messages.length}`,
              content: `Noted: ${String(state.messages.at(-1)?.content)}`,
            }),
          ];
          if (String(state.messages.at(-1)?.content) !== "rewrite") return { messages: replies };
          return {
            messages: new Overwrite(
              rewrite(state.messages, [
                ...replies,
                new AIMessage({ id: `extra-${state.messages.length}`, content: "And one more thing." }),
              ]),
            ),
          };
        })
        .addEdge(START, "agent")
        .compile({ checkpointer: saver });
    }

    it.each([
      [
        "drops the oldest message and adds two replies (one longer than before)",
        (messages: BaseMessage[], replies: BaseMessage[]) => [
          ...messages.filter((message) => message.id !== "ask-0"),
          ...replies,
        ],
      ],
      [
        "edits the oldest message in place and adds one reply",
        (messages: BaseMessage[], replies: BaseMessage[]) => [
          new HumanMessage({ id: "ask-0", content: "Where is parcel PX-0? (edited)" }),
          ...messages.slice(1),
          replies[0]!,
        ],
      ],
    ])(
      "a step that %s with Overwrite: the prune reads the checkpoints and the transcript keeps what the head lost",
      async (_, rewrite) => {
        const graph = overwritingGraph(rewrite);
        for (let turn = 0; turn < 3; turn++)
          await graph.invoke(
            { messages: [new HumanMessage({ id: `ask-${turn}`, content: `Where is parcel PX-${turn}?` })] },
            config("overwrite"),
          );
        await graph.invoke({ messages: [new HumanMessage({ id: "ask-3", content: "rewrite" })] }, config("overwrite"));
        const before = lists.count;
        const report = await pruneThread(saver, config("overwrite"), { keep: 1 });
        expect(lists.count - before).toBeGreaterThan(0);
        expect(report).toMatchObject({ status: "pruned", kept: 1 });
        expect(report.backfilled).toBeGreaterThan(0);
        const head = (await graph.getState(config("overwrite"))).values.messages as BaseMessage[];
        const original = head.find((message) => message.id === "ask-0");
        if (original?.content !== "Where is parcel PX-0?")
          expect(await transcriptOf("overwrite")).toContainEqual(["ask-0", "Where is parcel PX-0?"]);
      },
    );
  });
}
