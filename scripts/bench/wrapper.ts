/**
 * The wrapper's cost when no compaction triggers: per-turn time of invoke and stream through CompactingSupervisor
 * against the bare graph on a 1,000-message SQLite thread, interleaved in one run, and the time to the first
 * streamed token (p95 beside the median), then the busy-thread block (BENCH_BUSY_SECONDS=0 skips it).
 * Run: npm run bench:wrapper
 */
import "../../src/store/all-backends.js";
import { HumanMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { ScriptedChatModel } from "../../test/support/fakes/scripted-chat-model.js";
import { modelWithHardLimit } from "../../test/support/window.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import { generateHistory } from "../workload/history.js";
import { benchBusyThread } from "./busy-thread.js";
import { median, percentile, printTable } from "./table.js";
import { readmeBlock } from "./readme-block.js";
import { seedHead } from "../workload/seed-head.js";

const TURNS = 25;

export async function benchWrapper(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "compaction-wrapper-"));
  const saver = SqliteSaver.fromConnString(join(dir, "wrapper.sqlite"));
  try {
    const history = generateHistory({ seed: 21, messages: 1_000 });
    const model = new ScriptedChatModel({
      reply: () => ({ content: "The invoice total is 4,200 EUR, approved by Alice Moreau on 2026-03-14." }),
    });
    const graph = createReactAgent({ llm: model, tools: [], checkpointer: saver });
    const wrapper = new CompactingSupervisor(graph, {
      trigger: { tokens: 10_000_000 },
      model: modelWithHardLimit(20_000_000),
      summarizer: new ExtractiveSummarizer(),
    });
    for (const threadId of ["bare", "wrapped"]) await seedHead(saver, threadId, history);
    const samples: Record<string, number[]> = {};
    const record = (name: string, ms: number) => (samples[name] ??= []).push(ms);
    const turn = (index: number) => ({ messages: [new HumanMessage(`turn ${index}: what is the invoice total?`)] });
    // Warm-up: the first call through the wrapper reads the thread once for its proactive check.
    await graph.invoke(turn(-1), { configurable: { thread_id: "bare" } });
    await wrapper.invoke(turn(-1), { configurable: { thread_id: "wrapped" } });
    for (let index = 0; index < TURNS; index++) {
      // Alternate which one goes first, so order effects (GC, caches) hit both alike.
      for (const wrapped of index % 2 === 0 ? [false, true] : [true, false]) {
        const target = wrapped ? wrapper : graph;
        const config = { configurable: { thread_id: wrapped ? "wrapped" : "bare" } };
        let started = performance.now();
        await target.invoke(turn(index), config);
        if (wrapped) await wrapper.flush();
        record(`invoke ${wrapped ? "wrapped" : "bare"}`, performance.now() - started);

        started = performance.now();
        for await (const _ of await target.stream(turn(index), config)) void _;
        if (wrapped) await wrapper.flush();
        record(`stream ${wrapped ? "wrapped" : "bare"}`, performance.now() - started);

        started = performance.now();
        let first = 0;
        for await (const _ of await target.stream(turn(index), { ...config, streamMode: "messages" })) {
          void _;
          if (!first) first = performance.now() - started;
        }
        if (wrapped) await wrapper.flush();
        record(`first token ${wrapped ? "wrapped" : "bare"}`, first);
        record(`stream messages ${wrapped ? "wrapped" : "bare"}`, performance.now() - started);

        // streamTokens against the stream it is made of (messages mode with subgraphs) on the bare graph.
        started = performance.now();
        if (wrapped) {
          for await (const _ of wrapper.streamTokens(turn(index), config)) void _;
          await wrapper.flush();
        } else {
          for await (const _ of await graph.stream(turn(index), { ...config, streamMode: "messages", subgraphs: true }))
            void _;
        }
        record(`streamTokens ${wrapped ? "wrapped" : "bare"}`, performance.now() - started);
      }
    }
    const rows = ["invoke", "stream", "stream messages", "streamTokens", "first token"].map((name) => {
      const bare = median(samples[`${name} bare`]!);
      const wrapped = median(samples[`${name} wrapped`]!);
      const bareTail = percentile(samples[`${name} bare`]!, 0.95);
      const wrappedTail = percentile(samples[`${name} wrapped`]!, 0.95);
      return {
        measurement:
          name === "first token"
            ? "time to first token (streamMode messages)"
            : name === "streamTokens"
              ? "streamTokens per turn (bare: stream messages + subgraphs)"
              : `${name} per turn (incl. the wrapper's counting)`,
        "bare ms": bare.toFixed(1),
        "wrapped ms": wrapped.toFixed(1),
        overhead: `${(((wrapped - bare) / bare) * 100).toFixed(1)}%`,
        "p95 bare / wrapped ms": `${bareTail.toFixed(1)} / ${wrappedTail.toFixed(1)}`,
        "p95 overhead": `${(((wrappedTail - bareTail) / bareTail) * 100).toFixed(1)}%`,
      };
    });
    printTable(
      `Wrapper overhead, no compaction, 1,000-message SQLite thread (median and p95 of ${TURNS} interleaved turns; target <= 5%)`,
      rows,
    );
  } finally {
    saver.db.close();
    rmSync(dir, { recursive: true, force: true });
  }
  if (process.env.BENCH_BUSY_SECONDS !== "0") await benchBusyThread();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await readmeBlock("wrapper", () => benchWrapper(), { write: process.env.BENCH_BUSY_SECONDS === undefined });
}
