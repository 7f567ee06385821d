/**
 * Property-based: the recall index against random interleavings of a thread's writes — turns, compactions,
 * restores to an earlier checkpoint, and turns that supersede the library's last write (a turn that had read the
 * head before that write: LangGraph writes its checkpoint as a child of the head it read). After every write,
 * the library's or a superseding turn's, what the index answers (its entries of messages out of the head:
 * recall/out-of-head.ts) is exactly the messages that left the head: every message ever in the thread's root
 * namespace, summaries aside, minus the head's. After every write of the library, reindexThread rebuilds the same
 * entries. A fixed seed in CI; FUZZ_SEED=<n> reproduces a printed failure.
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { MemorySaver } from "@langchain/langgraph-checkpoint";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ExtractiveSummarizer, getSummaryProvenance, HistoryManager, reindexThread } from "../../src/index.js";
import { threadStoreFor } from "../../src/store/thread-store.js";
import { entriesOutOfHead } from "../support/recall-view.js";
import { FUZZ_SEED, recordFigures, size } from "../support/reliability.js";

const RUNS = size("INDEX_FUZZ_RUNS", 40, 400);
type Step =
  | { kind: "turn"; words: number }
  | { kind: "compact"; ratio: number }
  | { kind: "restore"; back: number }
  | { kind: "supersede"; words: number };
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("turn" as const), words: fc.integer({ min: 3, max: 40 }) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("compact" as const),
      ratio: fc.double({ min: 0.2, max: 0.9, noNaN: true }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("restore" as const), back: fc.integer({ min: 1, max: 8 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("supersede" as const), words: fc.integer({ min: 3, max: 40 }) }),
  },
);

describe("the recall index under random interleavings of writes", () => {
  it(`answers exactly the messages that left the head after every write, superseded or not (${RUNS} cases, seed ${FUZZ_SEED})`, async () => {
    const figures = { libraryWrites: 0, superseding: 0, restores: 0, compactions: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 24 }), async (steps) => {
        const saver = new MemorySaver();
        const graph = new StateGraph(MessagesAnnotation)
          .addNode("agent", async () => ({}))
          .addEdge(START, "agent")
          .addEdge("agent", END)
          .compile({ checkpointer: saver });
        const manager = new HistoryManager({ checkpointer: saver, summarizer: new ExtractiveSummarizer() });
        const thread = `fuzz-${Math.random().toString(36).slice(2)}`;
        const config = { configurable: { thread_id: thread } };
        const root = { configurable: { thread_id: thread, checkpoint_ns: "" } };
        let turn = 0;
        /** The head the library's last write replaced: where a superseding turn had read the thread. */
        let readBefore: string | undefined;
        const say = (words: number) => {
          turn++;
          const body = Array.from({ length: words }, (_, index) => `w${(turn * 31 + index * 7) % 97}`).join(" ");
          return [
            new HumanMessage({ id: `h${turn}`, content: `turn ${turn}: ${body}` }),
            new AIMessage({ id: `a${turn}`, content: `reply ${turn} ${body.slice(0, 40)}` }),
          ];
        };
        const head = async () => (await saver.getTuple(config))!;
        const ids = (messages: readonly BaseMessage[]) =>
          messages.filter((message) => !getSummaryProvenance(message)).map((message) => message.id!);
        async function state(): Promise<{ left: string[]; indexed: string[]; inHead: Set<string> }> {
          const ever = new Set<string>();
          for await (const tuple of saver.list(root))
            for (const id of ids((tuple.checkpoint.channel_values.messages as BaseMessage[]) ?? [])) ever.add(id);
          const inHead = new Set(
            ((await head()).checkpoint.channel_values.messages as BaseMessage[]).map((message) => message.id!),
          );
          const indexed = (await entriesOutOfHead(saver, thread)).map((entry) => entry.messageId).sort();
          return { left: [...ever].filter((id) => !inHead.has(id)).sort(), indexed, inHead };
        }
        async function afterLibraryWrite(): Promise<void> {
          figures.libraryWrites++;
          const { left, indexed } = await state();
          expect(indexed).toEqual(left);
          const live = await threadStoreFor(saver).recall.entries(thread);
          await reindexThread(saver, config);
          expect(await threadStoreFor(saver).recall.entries(thread)).toEqual(live);
        }

        await graph.updateState(config, { messages: say(10) }, "agent");
        for (const next of steps) {
          if (next.kind === "turn") {
            await graph.updateState(config, { messages: say(next.words) }, "agent");
            // A turn that reads the thread now sees the library's write: nothing can supersede it any more (two turns
            // racing each other fork the thread: one writer per thread, docs/limitations.md).
            readBefore = undefined;
          } else if (next.kind === "compact") {
            const before = (await head()).checkpoint.id;
            const report = await manager.compactThread(config, { compactionRatio: next.ratio });
            if (report.status !== "compacted") continue;
            figures.compactions++;
            readBefore = before;
            await afterLibraryWrite();
          } else if (next.kind === "restore") {
            const line: string[] = [];
            for await (const tuple of saver.list(root)) line.push(tuple.checkpoint.id);
            const target = line[Math.min(next.back, line.length - 1)]!;
            const current = await head();
            const messages = (await saver.getTuple({ configurable: { ...root.configurable, checkpoint_id: target } }))!
              .checkpoint.channel_values.messages as BaseMessage[];
            await manager.replaceThreadHistory(config, messages, {
              expectedCheckpointId: current.checkpoint.id,
              metadata: { restore: { fromCheckpointId: target } },
            });
            figures.restores++;
            readBefore = current.checkpoint.id;
            await afterLibraryWrite();
          } else if (readBefore) {
            // A turn that had read the head the library's last write replaced writes now, as a child of that head.
            await graph.updateState(
              { configurable: { ...root.configurable, checkpoint_id: readBefore } },
              { messages: say(next.words) },
              "agent",
            );
            figures.superseding++;
            readBefore = undefined;
            const { left, indexed } = await state();
            expect(indexed).toEqual(left);
          }
        }
      }),
      { numRuns: RUNS, seed: FUZZ_SEED },
    );
    expect(figures.superseding).toBeGreaterThan(0);
    expect(figures.restores).toBeGreaterThan(0);
    recordFigures("index-exactness", { cases: RUNS, ...figures });
  }, 600_000);
});
