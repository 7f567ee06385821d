/**
 * Memory: what one CompactingSupervisor keeps alive across 20,000 threads in one process — measured before the
 * turns, after them, and after dropping the wrapper while its graph and checkpointer stay alive (the difference is
 * exactly what the wrapper kept: token cache, per-thread records, circuit-breaker records). Three
 * workloads: 20,000 threads with one turn each; the same with a summarizer that always fails (every thread counted
 * by the circuit breaker); and 20 threads whose input is a 5 MB message. Memory (heap plus external: the saver's
 * serialized checkpoints are buffers) measured after two forced GCs.
 * Run: npm run bench:memory (the bench needs node --expose-gc; `npm run bench` starts it in a child process).
 */
import "../../src/store/all-backends.js";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph-checkpoint";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import type { Summarizer } from "../../src/summarizers/types.js";
import type { CompactingSupervisorOptions } from "../../src/runtimes/wrapper/options.js";
import { MAX_THREADS } from "../../src/runtimes/wrapper/thread-records.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import { modelWithHardLimit } from "../../test/support/window.js";
import { DEFAULT_CACHE_BYTES } from "../../src/tokens/message-cache.js";
import { printTable } from "./table.js";
import { readmeBlock } from "./readme-block.js";

const THREADS = Number(process.env.BENCH_MEMORY_THREADS ?? 20_000);
const BATCH = 50;
const REPLY =
  "The invoice total is 4,200 EUR, approved by Alice Moreau on 2026-03-14; the refund went out on 2026-03-20. ".repeat(
    4,
  );

function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error("run with node --expose-gc (npm run bench:memory)");
  collect();
  collect();
}

/** The JS heap plus memory outside it (the checkpointer's serialized bytes, buffers). */
function heapMb(): number {
  gc();
  const usage = process.memoryUsage();
  return (usage.heapUsed + usage.external) / 1024 / 1024;
}

function echoGraph(checkpointer: MemorySaver) {
  return new StateGraph(MessagesAnnotation)
    .addNode("reply", async () => ({ messages: [new AIMessage(REPLY)] }))
    .addEdge(START, "reply")
    .addEdge("reply", END)
    .compile({ checkpointer });
}

interface Target {
  invoke(input: { messages: HumanMessage[] }, config: { configurable: { thread_id: string } }): Promise<unknown>;
}

async function turns(target: Target, threads: number, input: (thread: number) => HumanMessage): Promise<void> {
  for (let start = 0; start < threads; start += BATCH) {
    const batch: Array<Promise<unknown>> = [];
    for (let thread = start; thread < Math.min(threads, start + BATCH); thread++) {
      batch.push(target.invoke({ messages: [input(thread)] }, { configurable: { thread_id: `t-${thread}` } }));
    }
    await Promise.all(batch);
  }
}

const failing: Summarizer = {
  name: "always-fails",
  async summarize() {
    throw new Error("the summarizer is down");
  },
};

interface Workload {
  name: string;
  threads: number;
  rounds: number;
  input: (thread: number) => HumanMessage;
  options: CompactingSupervisorOptions;
}

async function measureWorkload(workload: Workload): Promise<Record<string, string | number>> {
  const before = heapMb();
  const saver = new MemorySaver();
  const graph = echoGraph(saver);
  let wrapper: CompactingSupervisor | undefined = new CompactingSupervisor(graph, workload.options);
  for (let round = 0; round < workload.rounds; round++) await turns(wrapper, workload.threads, workload.input);
  await wrapper.flush();
  const records = (wrapper as unknown as { records: { size: number } }).records.size;
  const failures = (wrapper as unknown as { breaker: { size: number } }).breaker.size;
  const after = heapMb();
  // Dropping the wrapper (the graph and its saver stay alive) frees exactly what the wrapper kept.
  wrapper = undefined;
  const released = heapMb();
  if (graph.checkpointer !== saver) throw new Error("the graph lost its saver"); // keeps both alive to here
  return {
    workload: workload.name,
    "before MB": before.toFixed(1),
    "after MB": after.toFixed(1),
    "wrapper dropped MB": released.toFixed(1),
    "wrapper's own MB": (after - released).toFixed(1),
    "thread records": records.toLocaleString("en"),
    "breaker records": failures.toLocaleString("en"),
  };
}

export async function benchMemory(): Promise<void> {
  const rows: Array<Record<string, string | number>> = [];
  const question = (thread: number) =>
    new HumanMessage(`Thread ${thread}: what was the invoice total, and who approved the refund?`);
  const huge = (thread: number) =>
    new HumanMessage(`${thread} `.padEnd(5 * 1024 * 1024, "lorem ipsum dolor sit amet "));
  const workloads: Workload[] = [
    {
      name: `${THREADS.toLocaleString("en")} threads, one turn each`,
      threads: THREADS,
      rounds: 1,
      input: question,
      options: { trigger: { tokens: 100_000 } },
    },
    {
      // Two turns, so the first one can be summarized: every thread's compaction fails once.
      name: `${THREADS.toLocaleString("en")} threads, two turns, every compaction failing`,
      threads: THREADS,
      rounds: 2,
      input: question,
      options: {
        trigger: { tokens: 300 },
        model: modelWithHardLimit(1_000_000),
        summarizer: failing,
        onCompactionError: () => undefined,
      },
    },
    {
      name: "20 threads, a 5 MB input each",
      threads: 20,
      rounds: 1,
      input: huge,
      options: {
        trigger: { tokens: 100_000_000 },
        model: modelWithHardLimit(100_000_000),
        summarizer: new ExtractiveSummarizer(),
      },
    },
  ];
  // Each workload in its own call, so nothing of the previous one is still referenced from this frame.
  for (const workload of workloads) rows.push(await measureWorkload(workload));
  printTable(
    `Memory of one wrapper in one process (heap + external after forced GC; ceiling: the token cache's ${DEFAULT_CACHE_BYTES / 1024 / 1024} MiB, plus up to ` +
      `${MAX_THREADS.toLocaleString("en")} thread records of a few hundred bytes and as many failure records of about 1 KB, the last error's stack included)`,
    rows,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await readmeBlock("memory", () => benchMemory(), { write: process.env.BENCH_MEMORY_THREADS === undefined });
}
