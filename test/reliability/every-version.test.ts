/**
 * Every version of every message survives prunes, on a SQLite file and on Postgres. Drawn mixes of what a graph and
 * an application do to a thread — appends, a single message, a `Command` update, `RemoveMessage`, `Overwrite` that
 * drops or edits a message, `updateState` edits under the same id — with compactions, restores and prunes between
 * them. An edit changes a drawn part of what is stored: the text, an image part's URL, `additional_kwargs`, a tool
 * call's id (with its result's) or `response_metadata`; all but the first leave the text as it was. Whatever was
 * stored in any checkpoint (each message id with each stored form it ever had) is, after each prune, in a checkpoint
 * that stays or in the thread's transcript (the entry or its `versions`), and `readTranscript` shows it.
 * A fixed seed in CI; FUZZ_SEED=<n> reproduces a printed failure.
 */
import { AIMessage, HumanMessage, RemoveMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { Command, MessagesAnnotation, Overwrite, START, StateGraph } from "@langchain/langgraph";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { pruneThread } from "../../src/engine/prune.js";
import { getSummaryProvenance } from "../../src/messages/summary-message.js";
import { storedForm, storedFormOfSerialized } from "../../src/messages/stored-form.js";
import { readTranscript } from "../../src/recall/transcript.js";
import { threadStoreFor } from "../../src/store/thread-store.js";
import { createStore, type TestStore } from "../support/savers.js";
import { FUZZ_SEED, recordFigures, size } from "../support/reliability.js";

const RUNS = size("VERSION_RUNS", 6, 60);

type Step =
  | { kind: "append" | "single" | "command" }
  | { kind: "remove" | "overwrite-drop" | "overwrite-edit" | "update-state"; pick: number }
  | { kind: "compact" }
  | { kind: "restore"; back: number }
  | { kind: "prune"; keep: number };

const pick = fc.nat({ max: 1_000 });
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<Step>({ kind: "append" }, { kind: "single" }, { kind: "command" }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constantFrom(
        "remove" as const,
        "overwrite-drop" as const,
        "overwrite-edit" as const,
        "update-state" as const,
      ),
      pick,
    }),
  },
  { weight: 2, arbitrary: fc.constant<Step>({ kind: "compact" }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("restore" as const), back: fc.integer({ min: 1, max: 6 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("prune" as const), keep: fc.integer({ min: 1, max: 3 }) }) },
);

/** The old messages a step may touch: ids the reducer can remove or write over (no summary, not the newest). */
const touchable = (messages: readonly BaseMessage[]) =>
  messages
    .slice(0, -1)
    .filter((message) => message.id && !getSummaryProvenance(message) && message.getType() !== "system");

/** A graph whose node does what the input's `additional_kwargs.step` says, with the reducer inputs LangGraph accepts. */
function stepGraph(checkpointer: TestStore["saver"]) {
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state) => {
      const last = state.messages.at(-1)!;
      const { step: kind, pick: chosen = 0 } = (last.additional_kwargs ?? {}) as { step?: Step["kind"]; pick?: number };
      const n = state.messages.length;
      const reply = new AIMessage({
        id: `reply-${last.id}`,
        content: `Answer ${n}: parcel PX-${n} is in depot ${n % 7}, row ${n * 3}, shelf ${n % 5}; it was scanned by courier C-${n * 11} at 0${n % 9}:1${n % 6} and signed for by the clerk on duty, who logged it under claim CL-${n * 97}.`,
        response_metadata: { model_name: "scripted", turn: n },
      });
      const old = touchable(state.messages);
      const target = old.length > 0 ? old[chosen % old.length]! : undefined;
      if (kind === "single") return { messages: reply };
      if (kind === "command") return new Command({ update: { messages: [reply] } });
      // A message leaves with its tool call unit (the call and its results), so the history stays valid.
      const unit = target ? unitOf(state.messages, target) : new Set<string>();
      if (kind === "remove" && target)
        return { messages: [...[...unit].map((id) => new RemoveMessage({ id })), reply] };
      if (kind === "overwrite-drop" && target)
        return {
          messages: new Overwrite([
            ...state.messages.filter((message) => !unit.has(message.id!)),
            reply,
            new AIMessage({ id: `more-${last.id}`, content: "And one more thing." }),
          ]),
        };
      if (kind === "overwrite-edit" && target) {
        const edits = new Map(editsOf(state.messages, target, chosen, `overwritten at ${n}`).map((m) => [m.id, m]));
        return {
          messages: new Overwrite([...state.messages.map((message) => edits.get(message.id) ?? message), reply]),
        };
      }
      // A plain turn looks a parcel up: a tool call, its result, then the answer.
      const call = `call-${last.id}`;
      return {
        messages: [
          new AIMessage({
            id: `lookup-${last.id}`,
            content: "",
            tool_calls: [{ id: call, name: "lookup", args: { parcel: `PX-${n}` } }],
          }),
          new ToolMessage({ id: `result-${last.id}`, tool_call_id: call, content: `PX-${n}: depot ${n % 7}` }),
          reply,
        ],
      };
    })
    .addEdge(START, "agent")
    .compile({ checkpointer });
}

/** The ids of `target`'s unit: an AI message's tool calls with their results, a result with its call's. */
function unitOf(messages: readonly BaseMessage[], target: BaseMessage): Set<string> {
  const call =
    target instanceof ToolMessage
      ? messages.find((message) =>
          ((message as AIMessage).tool_calls ?? []).some((toolCall) => toolCall.id === target.tool_call_id),
        )
      : target;
  const calls = new Set(((call as AIMessage | undefined)?.tool_calls ?? []).map((toolCall) => toolCall.id));
  return new Set(
    [
      call ?? target,
      ...messages.filter((message) => message instanceof ToolMessage && calls.has(message.tool_call_id)),
    ].map((message) => message.id!),
  );
}

/** The parts of a stored message an edit changes: the text, or one that leaves it as it was. */
const EDITS = ["text", "image", "kwargs", "tool-call-id", "metadata"] as const;

/** The message rebuilt from its stored fields, with `change` applied to them (the same class and id). */
function rebuilt(message: BaseMessage, change: (fields: Record<string, unknown>) => void): BaseMessage {
  const fields = { ...(message.toJSON() as { kwargs: Record<string, unknown> }).kwargs };
  change(fields);
  const Message = message.constructor as new (fields: Record<string, unknown>) => BaseMessage;
  return new Message(fields);
}

/**
 * The edits of `target` (and, for a tool call's id, of the result answering it) for the drawn `pick`: a part the
 * message does not have (an image, a tool call) is a kwargs edit instead.
 */
function editsOf(messages: readonly BaseMessage[], target: BaseMessage, pick: number, note: string): BaseMessage[] {
  const edit = EDITS[Math.floor(pick / 7) % EDITS.length]!;
  const calls = (target as AIMessage).tool_calls ?? [];
  const image = Array.isArray(target.content) && target.content.some((part) => part.type === "image_url");
  if (edit === "text")
    return [
      rebuilt(target, (fields) => {
        fields.content = Array.isArray(fields.content)
          ? [...(fields.content as unknown[]), { type: "text", text: `(${note})` }]
          : `${String(fields.content)} (${note})`;
      }),
    ];
  if (edit === "image" && image)
    return [
      rebuilt(target, (fields) => {
        fields.content = (fields.content as Array<Record<string, unknown>>).map((part) =>
          part.type === "image_url" ? { ...part, image_url: { url: `https://images.example/${note}.png` } } : part,
        );
      }),
    ];
  if (edit === "tool-call-id" && calls.length > 0) {
    const renamed = new Map(calls.map((call) => [call.id, `${call.id}-${note.replace(/ /g, "-")}`]));
    const results = messages.filter((message) => message instanceof ToolMessage && renamed.has(message.tool_call_id));
    return [
      rebuilt(target, (fields) => {
        fields.tool_calls = calls.map((call) => ({ ...call, id: renamed.get(call.id) }));
      }),
      ...results.map((result) =>
        rebuilt(result, (fields) => {
          fields.tool_call_id = renamed.get((result as ToolMessage).tool_call_id);
        }),
      ),
    ];
  }
  if (edit === "metadata")
    return [
      rebuilt(target, (fields) => {
        fields.response_metadata = { ...(fields.response_metadata as object), edited: note };
      }),
    ];
  return [
    rebuilt(target, (fields) => {
      fields.additional_kwargs = { ...(fields.additional_kwargs as object), edited: note };
    }),
  ];
}

const versionKey = (message: BaseMessage) => `${message.id}\u0000${storedForm(message)}`;

for (const kind of ["sqlite", "postgres"] as const) {
  describe(`every version of every message on ${kind}`, () => {
    let store: TestStore;
    beforeAll(async () => void (store = await createStore(kind)));
    afterAll(async () => await store.close());

    it(`drawn mixes of reducer inputs, edits, compactions, restores and prunes lose no version (${RUNS} runs, seed ${FUZZ_SEED})`, async () => {
      const threads = threadStoreFor(store.saver);
      const graph = stepGraph(store.saver);
      let run = 0;
      const figures = {
        runs: RUNS,
        steps: 0,
        prunes: 0,
        compactions: 0,
        restores: 0,
        versionsChecked: 0,
        edits: 0,
        versionsLost: 0,
      };
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 8, maxLength: 24 }), async (steps) => {
          const thread = `versions-${kind}-${run++}`;
          const config = { configurable: { thread_id: thread } };
          const manager = new HistoryManager({ checkpointer: store.saver, trigger: { tokens: 400 }, env: {} });
          const seen = new Set<string>();
          const record = async () => {
            for (const { messages } of await threads.listCheckpoints(thread))
              for (const message of messages)
                if (message.id && !getSummaryProvenance(message)) seen.add(versionKey(message));
          };
          let turn = 0;
          for (const current of steps) {
            figures.steps++;
            if (current.kind === "prune") {
              if (turn === 0) continue;
              await record();
              await pruneThread(store.saver, config, { keep: current.keep });
              figures.prunes++;
              const stored = new Set<string>();
              for (const { messages } of await threads.listCheckpoints(thread))
                for (const message of messages) if (message.id) stored.add(versionKey(message));
              const held = new Set(stored);
              for (const entry of await threads.recall.entries(thread))
                for (const { message } of [entry, ...(entry.versions ?? [])])
                  if (message !== undefined) held.add(`${entry.messageId}\u0000${storedFormOfSerialized(message)}`);
              const lost = [...seen].filter((key) => !held.has(key));
              figures.versionsChecked += seen.size;
              figures.versionsLost += lost.length;
              expect(
                lost.map((key) => key.replace("\u0000", ": ")),
                `thread ${thread}`,
              ).toEqual([]);
              // readTranscript shows every version no checkpoint holds any more: a line's message or one of its versions.
              const page = await readTranscript(store.saver, config, { limit: 10_000 });
              const shown = new Set(
                page.messages
                  .flatMap((line) => [line.message, ...(line.versions ?? [])])
                  .filter((message) => message.id)
                  .map(versionKey),
              );
              expect(
                [...seen]
                  .filter((key) => !shown.has(key) && !stored.has(key))
                  .map((key) => key.replace("\u0000", ": ")),
                `thread ${thread}`,
              ).toEqual([]);
              continue;
            }
            if (current.kind === "compact") {
              if (turn > 0 && (await manager.compactThread(config)).status === "compacted") figures.compactions++;
              continue;
            }
            if (current.kind === "restore") {
              const history = await threads.listCheckpoints(thread);
              const target = history[current.back];
              const head = history[0];
              if (target && head && target.messages.length > 0) {
                await manager.replaceThreadHistory(config, target.messages, {
                  expectedCheckpointId: head.tuple.checkpoint.id,
                  metadata: { restore: { fromCheckpointId: target.tuple.checkpoint.id } },
                });
                figures.restores++;
              }
              continue;
            }
            if (current.kind === "update-state") {
              const state = await graph.getState(config);
              const messages = (state.values.messages ?? []) as BaseMessage[];
              const old = touchable(messages);
              if (old.length === 0) continue;
              figures.edits++;
              await graph.updateState(config, {
                messages: editsOf(messages, old[current.pick % old.length]!, current.pick, `edited at ${turn}`),
              });
              continue;
            }
            turn++;
            const question = `Where is parcel PX-${turn}, and who signed for it? The customer at address ${turn * 13} Elm Street says it never arrived, and the tracking page still shows order OR-${turn * 71} as in transit.`;
            const ask = new HumanMessage({
              id: `ask-${turn}`,
              // Every other question comes with a photo of the label.
              content:
                turn % 2 === 0
                  ? [
                      { type: "text", text: question },
                      { type: "image_url", image_url: { url: `https://images.example/label-${turn}.png` } },
                    ]
                  : question,
              additional_kwargs: { step: current.kind, ...("pick" in current ? { pick: current.pick } : {}) },
            });
            await graph.invoke({ messages: [ask] }, config);
          }
        }),
        { numRuns: RUNS, seed: FUZZ_SEED, endOnFailure: true },
      );
      recordFigures(`every-version-${kind}`, figures);
      expect(figures.prunes).toBeGreaterThan(0);
      expect(figures.compactions).toBeGreaterThan(0);
    });
  });
}
