/**
 * The behaviour suite of the in-graph runtime, run on each form (the createAgent middleware, the preModelHook of
 * createReactAgent, a node of a hand-written StateGraph) over real savers: nothing lost (the transcript then the
 * head is every message the application saw, in order, content-identical), valid tool pairs, the head within its
 * limits, pins kept, a failing summarizer changes nothing, a summary computed off the model call is applied at a
 * later call with what was appended since, and a summary of a prefix that changed is discarded.
 */
import { HumanMessage, RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSummaryProvenance } from "../../src/messages/summary-message.js";
import { pinMessage } from "../../src/messages/pins.js";
import { validateHistory } from "../../src/messages/validate.js";
import { readTranscript } from "../../src/recall/transcript.js";
import type { InGraphCompactionEvent, InGraphOptions } from "../../src/runtimes/in-graph/in-graph-compactor.js";
import type { Summarizer } from "../../src/summarizers/types.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { GatedSummarizer } from "./fakes/gated-summarizer.js";
import { createStore, type SaverKind, type TestStore } from "./savers.js";
import { modelWithHardLimit } from "./window.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";

export const LIMIT = 900;
const config = (thread: string) => ({ configurable: { thread_id: thread } });

/** What the suite uses of a compiled graph. */
export interface InGraphAgent {
  invoke(
    input: { messages: BaseMessage[] },
    config: { configurable: { thread_id: string } },
  ): Promise<{ messages: unknown }>;
  getState(config: { configurable: { thread_id: string } }): Promise<{ values: unknown }>;
  /** Resolves once the in-graph step has no summary in flight (its `idle()`). */
  idle(): Promise<void>;
}

export interface InGraphForm {
  name: string;
  /** The graph with the in-graph step given `options`, or without any compaction when `options` is undefined. */
  build(saver: BaseCheckpointSaver, options: InGraphOptions | undefined): InGraphAgent;
  kinds: readonly SaverKind[];
}

export function turnText(index: number): string {
  return index % 3 === 2
    ? `lookup project-${index} please`
    : `turn ${index}: the invoice total for order ord_${1000 + index} is ${index * 17} EUR, decided by Alice Moreau.`;
}

function recorder() {
  const events = { compactions: [] as InGraphCompactionEvent[], errors: [] as unknown[] };
  const hooks = {
    onCompaction: (event: InGraphCompactionEvent) => void events.compactions.push(event),
    onCompactionError: (error: unknown) => void events.errors.push(error),
  };
  return { events, hooks };
}

async function turn(
  agent: InGraphAgent,
  thread: string,
  index: number,
  seen: Map<string, BaseMessage>,
  extra: BaseMessage[] = [],
): Promise<void> {
  const result = await agent.invoke(
    { messages: [...extra, new HumanMessage({ id: `${thread}-${index}`, content: turnText(index) })] },
    config(thread),
  );
  for (const message of result.messages as BaseMessage[])
    if (message.id && !getSummaryProvenance(message) && !seen.has(message.id)) seen.set(message.id, message);
}

async function play(
  agent: InGraphAgent,
  thread: string,
  turns: number,
  first?: BaseMessage,
): Promise<Map<string, BaseMessage>> {
  const seen = new Map<string, BaseMessage>();
  for (let index = 0; index < turns; index++)
    await turn(agent, thread, index, seen, index === 0 && first ? [first] : []);
  return seen;
}

async function head(agent: InGraphAgent, thread: string): Promise<BaseMessage[]> {
  return ((await agent.getState(config(thread))).values as { messages: BaseMessage[] }).messages;
}

/** The transcript then the head, without summaries: every message the application saw, in order, unchanged. */
async function expectNothingLost(
  saver: BaseCheckpointSaver,
  thread: string,
  seen: Map<string, BaseMessage>,
): Promise<void> {
  const page = await readTranscript(saver, config(thread), { limit: 10_000 });
  const lines = page.messages.filter((line) => line.source !== "summary");
  expect(lines.map((line) => line.message.id)).toEqual([...seen.keys()]);
  for (const line of lines) expect(line.message.content).toEqual(seen.get(line.message.id!)!.content);
}

export function inGraphBehaviour(form: InGraphForm): void {
  for (const kind of form.kinds) {
    describe(`${form.name} (${kind})`, () => {
      let store: TestStore;
      beforeAll(async () => void (store = await createStore(kind)));
      afterAll(async () => await store.close());
      const counter = new TokenCounter();

      for (const background of [false, true]) {
        it(`${background ? "off the model call" : "before the model call"}: loses no message, keeps tool pairs valid and the head within its limit`, async () => {
          const thread = `lossless-${background}`;
          const { events, hooks } = recorder();
          const hardLimit = LIMIT + 600;
          const agent = form.build(store.saver, {
            trigger: { tokens: LIMIT },
            model: modelWithHardLimit(hardLimit),
            summarizer: new ExtractiveSummarizer(),
            env: {},
            background,
            ...hooks,
          });
          const seen = new Map<string, BaseMessage>();
          for (let index = 0; index < 30; index++) {
            await turn(agent, thread, index, seen);
            const messages = await head(agent, thread);
            expect(validateHistory(messages)).toEqual([]);
            // Before the call, the context is never over the limit (waiting) or the hard limit (off the call).
            expect(counter.countMessages(messages)).toBeLessThanOrEqual((background ? hardLimit : LIMIT) + 400);
          }
          expect(events.errors).toEqual([]);
          expect(events.compactions.length).toBeGreaterThan(1);
          expect(events.compactions.every((event) => event.background === background)).toBe(true);
          expect((await head(agent, thread)).some((message) => getSummaryProvenance(message))).toBe(true);
          await expectNothingLost(store.saver, thread, seen);
        });
      }

      it("keeps a pinned message verbatim through every compaction", async () => {
        const pinned = pinMessage(
          new HumanMessage({
            id: "pin-1",
            content: "Ground rule: every refund above 500 EUR needs Priya Raman's approval.",
          }),
        );
        const { events, hooks } = recorder();
        // Compacting before the call: when a summary run off the call lands depends on the machine's load (the
        // extractive summarizer yields to the event loop every few milliseconds), and this test is about pins.
        const agent = form.build(store.saver, { trigger: { tokens: LIMIT }, env: {}, background: false, ...hooks });
        await play(agent, "pinned", 24, pinned);
        expect(events.compactions.length).toBeGreaterThan(0);
        expect((await head(agent, "pinned")).find((message) => message.id === "pin-1")?.content).toBe(pinned.content);
      });

      it("a summarizer that fails writes nothing: the history is the uncompacted one and every turn is answered", async () => {
        const failing: Summarizer = {
          name: "failing",
          summarize: async () => {
            throw new Error("provider down");
          },
        };
        const { events, hooks } = recorder();
        await play(
          form.build(store.saver, { trigger: { tokens: LIMIT }, env: {}, summarizer: failing, ...hooks }),
          "failing",
          24,
        );
        await play(form.build(store.saver, undefined), "plain", 24);
        expect(events.compactions).toEqual([]);
        expect(events.errors.length).toBeGreaterThan(0);
        // Each failure is told; after three in a row the circuit breaker pauses the thread's compaction, told once.
        const codes = events.errors.map((error) => (error as { code?: string }).code);
        expect(codes.filter((code) => code === "SUMMARIZER_FAILED").length).toBeGreaterThan(0);
        expect(codes.filter((code) => code === "COMPACTION_PAUSED").length).toBeLessThanOrEqual(1);
        expect(codes.every((code) => code === "SUMMARIZER_FAILED" || code === "COMPACTION_PAUSED")).toBe(true);
        const plain = form.build(store.saver, undefined);
        const failed = await head(plain, "failing");
        expect(failed.map((message) => [message.getType(), message.content])).toEqual(
          (await head(plain, "plain")).map((message) => [message.getType(), message.content]),
        );
        expect(failed.at(-1)!.getType()).toBe("ai");
      });

      /** A graph whose summarizer is held at a gate, played until a summary is started (and held); no call waits for it (lateness). */
      async function heldSummary(thread: string) {
        const gate = new GatedSummarizer();
        const { events, hooks } = recorder();
        const agent = form.build(store.saver, {
          trigger: { tokens: LIMIT },
          model: modelWithHardLimit(100_000),
          lateness: 1_000,
          env: {},
          summarizer: gate,
          ...hooks,
        });
        const seen = new Map<string, BaseMessage>();
        let index = 0;
        while (gate.calls === 0) await turn(agent, thread, index++, seen);
        return { gate, events, agent, seen, index };
      }

      it("computes the summary off the model call and applies it at a later call, with what was appended since", async () => {
        // Turns go on, answered, while the summary is held: no model call waits for it.
        const { gate, events, agent, seen, index: held } = await heldSummary("off-call");
        let index = held;
        await turn(agent, "off-call", index++, seen);
        expect(events.compactions).toEqual([]);
        expect((await head(agent, "off-call")).at(-1)!.getType()).toBe("ai");
        gate.release();
        // The summary started off the model call is ready (the step's own signal: nothing in flight).
        await agent.idle();
        await turn(agent, "off-call", index++, seen);
        expect(events.compactions).toHaveLength(1);
        expect(events.compactions[0]).toMatchObject({ background: true });
        expect(events.compactions[0]!.appended).toBeGreaterThan(0);
        expect(held).toBeGreaterThan(1);
        const messages = await head(agent, "off-call");
        expect(messages.some((message) => getSummaryProvenance(message))).toBe(true);
        expect(validateHistory(messages)).toEqual([]);
        await expectNothingLost(store.saver, "off-call", seen);
      });

      it("discards a summary whose prefix changed meanwhile (WRITE_CONFLICT) and writes nothing from it", async () => {
        const { gate, events, agent, seen, index } = await heldSummary("changed");
        const before = await head(agent, "changed");
        // The held summary completes; any later one is held again, so only this one can be applied.
        gate.release();
        // The summary started off the model call is ready (the step's own signal: nothing in flight).
        await agent.idle();
        gate.close();
        // The application removes the thread's first message: the summarized prefix is no longer the state's.
        const removed = before[0]!;
        await turn(agent, "changed", index, seen, [new RemoveMessage({ id: removed.id! })]);
        expect(events.compactions).toEqual([]);
        expect(events.errors).toEqual([expect.objectContaining({ code: "WRITE_CONFLICT" })]);
        const after = await head(agent, "changed");
        expect(after.some((message) => getSummaryProvenance(message))).toBe(false);
        expect(after.slice(0, before.length - 1).map((message) => message.id)).toEqual(
          before.slice(1).map((message) => message.id),
        );
        const transcript = await readTranscript(store.saver, config("changed"), { limit: 10_000 });
        expect(transcript.messages.every((line) => line.source === "head")).toBe(true);
      });
    });
  }
}
