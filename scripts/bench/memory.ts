/**
 * Memory: what one CompactingSupervisor keeps alive across 20,000 threads in one process, against the bare graph
 * doing the same turns (the checkpointer holds the same data in both; the difference is the wrapper's). Three
 * workloads: 20,000 threads with one turn each; the same with a summarizer that always fails (every thread counted
 * by the circuit breaker); and 20 threads whose input is a 5 MB message. Heap measured after two forced GCs.
 * Run: npm run bench:memory (the bench needs node --expose-gc; `npm run bench` starts it in a child process).
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph-checkpoint";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { CompactingSupervisor } from "../../src/supervisor/compacting-supervisor.js";
import type { Summarizer } from "../../src/summarizers/types.js";
import type { CompactingSupervisorOptions } from "../../src/supervisor/options.js";
import { DEFAULT_MAX_THREADS } from "../../src/supervisor/thread-records.js";
import { DEFAULT_CACHE_BYTES } from "../../src/tokens/message-cache.js";
import { printTable } from "./table.js";

const THREADS = Number(process.env.BENCH_MEMORY_THREADS ?? 20_000);
const BATCH = 50;
const REPLY = "The invoice total is 4,200 EUR, approved by Alice Moreau on 2026-03-14; the refund went out on 2026-03-20. ".repeat(4);

function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error("run with node --expose-gc (npm run bench:memory)");
  collect();
  collect();
}

function heapMb(): number {
  gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
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

/** Heap growth of one workload, run on a fresh saver; everything it made is still alive when measured. */
async function measure(run: (saver: MemorySaver) => Promise<unknown>): Promise<{ grown: number; kept: unknown }> {
  const before = heapMb();
  const saver = new MemorySaver();
  const kept = await run(saver);
  const grown = heapMb() - before;
  void saver;
  return { grown, kept };
}

const failing: Summarizer = {
  name: "always-fails",
  async summarize() {
    throw new Error("the summarizer is down");
  },
};

export async function benchMemory(): Promise<void> {
  const rows: Array<Record<string, string | number>> = [];
  const question = (thread: number) => new HumanMessage(`Thread ${thread}: what was the invoice total, and who approved the refund?`);
  const huge = (thread: number) => new HumanMessage(`${thread} `.padEnd(5 * 1024 * 1024, "lorem ipsum dolor sit amet "));
  const workloads: Array<{ name: string; threads: number; rounds: number; input: (thread: number) => HumanMessage; options: CompactingSupervisorOptions }> = [
    { name: `${THREADS.toLocaleString("en")} threads, one turn each`, threads: THREADS, rounds: 1, input: question, options: { tokenLimit: 100_000 } },
    {
      // Two turns, so the first one can be summarized: every thread's compaction fails once.
      name: `${THREADS.toLocaleString("en")} threads, two turns, every compaction failing`,
      threads: THREADS,
      rounds: 2,
      input: question,
      options: { tokenLimit: 200, hardLimit: 1_000_000, summaryTokens: 16, summarizer: failing, onCompactionError: () => undefined },
    },
    { name: "20 threads, a 5 MB input each", threads: 20, rounds: 1, input: huge, options: { tokenLimit: 100_000_000, hardLimit: 100_000_000 } },
  ];
  for (const workload of workloads) {
    const bare = await measure(async (saver) => {
      const graph = echoGraph(saver);
      for (let round = 0; round < workload.rounds; round++) await turns(graph, workload.threads, workload.input);
      return graph;
    });
    const wrapped = await measure(async (saver) => {
      const wrapper = new CompactingSupervisor(echoGraph(saver), workload.options);
      for (let round = 0; round < workload.rounds; round++) await turns(wrapper, workload.threads, workload.input);
      await wrapper.flush();
      return wrapper;
    });
    const wrapper = wrapped.kept as CompactingSupervisor;
    const records = (wrapper as unknown as { records: { size: number } }).records.size;
    const failures = (wrapper as unknown as { breaker: { size: number } }).breaker.size;
    rows.push({
      workload: workload.name,
      "bare heap growth MB": bare.grown.toFixed(1),
      "wrapped heap growth MB": wrapped.grown.toFixed(1),
      "wrapper's own MB": (wrapped.grown - bare.grown).toFixed(1),
      "thread records": records.toLocaleString("en"),
      "breaker records": failures.toLocaleString("en"),
    });
  }
  printTable(
    `Memory of one wrapper in one process (heap after forced GC; ceiling: maxThreads ${DEFAULT_MAX_THREADS.toLocaleString("en")} records of a few hundred bytes, ` +
      `plus the token cache's ${DEFAULT_CACHE_BYTES / 1024 / 1024} MiB)`,
    rows,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchMemory();
}
