/**
 * Every version of every message survives prunes, on a SQLite file and on Postgres. Drawn mixes of what a graph and
 * an application do to a thread — appends, a single message, a `Command` update, `RemoveMessage`, `Overwrite` that
 * drops or edits a message, `updateState` edits under the same id — with compactions, restores and prunes between
 * them. Whatever was stored in any checkpoint (each message id with each text it ever had) is, after each prune, in
 * a checkpoint that stays or in the thread's transcript (the entry or its `versions`), and `readTranscript` shows it.
 * A fixed seed in CI; FUZZ_SEED=<n> reproduces a printed failure.
 */
import { AIMessage, HumanMessage, RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import { Command, MessagesAnnotation, Overwrite, START, StateGraph } from "@langchain/langgraph";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { pruneThread } from "../../src/engine/prune.js";
import { getSummaryProvenance } from "../../src/messages/summary-message.js";
import { recallText } from "../../src/messages/message-shape.js";
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
      });
      const old = touchable(state.messages);
      const target = old.length > 0 ? old[chosen % old.length]! : undefined;
      if (kind === "single") return { messages: reply };
      if (kind === "command") return new Command({ update: { messages: [reply] } });
      if (kind === "remove" && target) return { messages: [new RemoveMessage({ id: target.id! }), reply] };
      if (kind === "overwrite-drop" && target)
        return {
          messages: new Overwrite([
            ...state.messages.filter((message) => message.id !== target.id),
            reply,
            new AIMessage({ id: `more-${last.id}`, content: "And one more thing." }),
          ]),
        };
      if (kind === "overwrite-edit" && target) {
        return {
          messages: new Overwrite([
            ...state.messages.map((message) => (message === target ? edited(message, `overwritten at ${n}`) : message)),
            reply,
          ]),
        };
      }
      return { messages: [reply] };
    })
    .addEdge(START, "agent")
    .compile({ checkpointer });
}

/** The same message (class, id, name, tool calls) with other text. */
function edited(message: BaseMessage, note: string): BaseMessage {
  const fields = {
    id: message.id,
    content: `${String(message.content)} (${note})`,
    ...(message.name ? { name: message.name } : {}),
  };
  return message.getType() === "human" ? new HumanMessage(fields) : new AIMessage(fields);
}

const versionKey = (message: BaseMessage) => `${message.id}\u0000${recallText(message)}`;

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
          const manager = new HistoryManager({ checkpointer: store.saver, tokenLimit: 400, env: {} });
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
                for (const text of [entry.text, ...(entry.versions ?? []).map((version) => version.text)])
                  held.add(`${entry.messageId}\u0000${text}`);
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
              const old = touchable((state.values.messages ?? []) as BaseMessage[]);
              if (old.length === 0) continue;
              figures.edits++;
              await graph.updateState(config, {
                messages: [edited(old[current.pick % old.length]!, `edited at ${turn}`)],
              });
              continue;
            }
            turn++;
            const ask = new HumanMessage({
              id: `ask-${turn}`,
              content: `Where is parcel PX-${turn}, and who signed for it? The customer at address ${turn * 13} Elm Street says it never arrived, and the tracking page still shows order OR-${turn * 71} as in transit.`,
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
