/**
 * The busy thread: a summarizer that takes 2 s, turns every 100 ms on one thread for BENCH_BUSY_SECONDS (default 60)
 * — (a) in one process on a SQLite file, (b) with a second process doing turns on the same file, (c) the same on
 * Postgres — each run twice, compaction off (the bare graph) and on (CompactingSupervisor), side by side in one run.
 * Reports turn latency (p50, p95) and its ratio to the bare run, compactions landed and rebased, summaries computed
 * and any computed twice for one prefix, the window the model received at each turn (max, against tokenLimit and
 * hardLimit), the size right after each landed compaction, and messages lost (auditThread).
 * Run: npm run bench:wrapper (BENCH_BUSY_SECONDS=20 for a shorter run)
 */
import "../../src/store/all-backends.js";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { getSummaryProvenance } from "../../src/messages/summary-message.js";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { auditThread } from "../../src/engine/audit.js";
import type { CompactionReport } from "../../src/engine/report.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import type { Summarizer } from "../../src/summarizers/types.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { startPostgres } from "../../test/support/postgres-server.js";
import { modelWithHardLimit } from "../../test/support/window.js";
import { busyAgent, TURN_INTERVAL_MS, userTurn } from "./busy-agent.js";
import { percentile, printTable } from "./table.js";

const SECONDS = Number(process.env.BENCH_BUSY_SECONDS ?? 60);
const SUMMARY_MS = 2_000;
const TOKEN_LIMIT = 3_000;
const HARD_LIMIT = 8_000;
const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));

interface Run {
  latencies: number[];
  windows: number[];
  errors: number;
  otherTurns?: string;
  reports: CompactionReport[];
  summaries: number;
  twice: number;
  /** auditThread's problems: messages lost by any writer (two uncoordinated graph processes fork the thread too). */
  lost: number;
  /** Messages of a replaced head that its compaction's checkpoint neither holds nor covers by a summary. */
  lostByCompaction: number;
  /**
   * User messages sent (by both processes) that the final head neither holds nor covers by a summary: comparable
   * off and on (off, read from the head alone; on, from the audit).
   */
  orphaned: number;
  messagesEver: number;
}

/** For every checkpoint a compaction wrote: each message of the head it replaced is kept or covered by a summary. */
async function lostByCompaction(saver: BaseCheckpointSaver, threadId: string): Promise<number> {
  let lost = 0;
  for await (const tuple of saver.list({ configurable: { thread_id: threadId, checkpoint_ns: "" } })) {
    if (!(tuple.metadata as { compaction?: unknown } | undefined)?.compaction || !tuple.parentConfig) continue;
    const parent = await saver.getTuple(tuple.parentConfig);
    const after = (tuple.checkpoint.channel_values as { messages?: BaseMessage[] }).messages ?? [];
    const kept = new Set(after.map((message) => message.id));
    const covered = new Set(
      after.flatMap((message) => {
        const provenance = getSummaryProvenance(message);
        return provenance ? [...provenance.coveredIds, provenance.previousSummaryId ?? ""] : [];
      }),
    );
    for (const message of (parent?.checkpoint.channel_values as { messages?: BaseMessage[] } | undefined)?.messages ??
      []) {
      if (!kept.has(message.id) && !covered.has(message.id!)) lost++;
    }
  }
  return lost;
}

/** The second process; resolves once it is connected, `done` once it has finished its turns. */
async function startOther(store: string, threadId: string): Promise<{ done: Promise<string> }> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", resolve(ROOT, "scripts/bench/busy-writer.ts"), store, threadId, String(SECONDS)],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const lines = createInterface({ input: child.stdout! });
  let resolveReady!: () => void;
  const ready = new Promise<void>((resolvePromise) => (resolveReady = resolvePromise));
  let summary = "";
  lines.on("line", (line) => (line === "ready" ? resolveReady() : (summary = line)));
  const done = new Promise<string>((resolvePromise) => child.on("close", () => resolvePromise(summary)));
  await ready;
  return { done };
}

async function runOnce(
  saver: BaseCheckpointSaver,
  store: string,
  threadId: string,
  compaction: boolean,
  second: boolean,
): Promise<Run> {
  const counter = new TokenCounter();
  const windows: number[] = [];
  const agent = busyAgent(saver, (messages) => windows.push(counter.countMessages(messages)));
  const prefixes = new Set<string>();
  let summaries = 0;
  let twice = 0;
  const extractive = new ExtractiveSummarizer();
  const slow: Summarizer = {
    name: "slow-extractive",
    async summarize(input) {
      summaries++;
      const key = `${input.previousSummary ?? ""}\u0000${input.messages.map((message) => message.id).join(",")}`;
      if (prefixes.has(key)) twice++;
      prefixes.add(key);
      await new Promise((resolvePromise) => setTimeout(resolvePromise, SUMMARY_MS));
      return extractive.summarize(input);
    },
  };
  const reports: CompactionReport[] = [];
  const target = compaction
    ? new CompactingSupervisor(agent, {
        trigger: { tokens: TOKEN_LIMIT },
        // The hard limit is 90% of the model's window.
        model: modelWithHardLimit(HARD_LIMIT),
        summarizer: slow,
        onCompaction: (report) => void (report.status === "compacted" && reports.push(report)),
      })
    : agent;
  const other = second ? await startOther(store, threadId) : undefined;
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  for (let turn = 0; performance.now() - started < SECONDS * 1000; turn++) {
    const due = started + turn * TURN_INTERVAL_MS;
    if (due > performance.now())
      await new Promise((resolvePromise) => setTimeout(resolvePromise, due - performance.now()));
    const begin = performance.now();
    try {
      await target.invoke(
        { messages: [new HumanMessage({ id: `main-${turn}`, content: userTurn("main", turn) })] },
        { configurable: { thread_id: threadId } },
      );
    } catch {
      errors++;
    }
    latencies.push(performance.now() - begin);
  }
  const otherTurns = await other?.done;
  if (target instanceof CompactingSupervisor) await target.flush();
  // Only the compacted thread is audited: the bare one never rewrites a head, and reading back all of its ~1,800
  // checkpoints of up to 1,200 messages took minutes. With two processes the audit also counts what LangGraph itself
  // orphans when two uncoordinated writers fork the thread; "user msgs orphaned" compares that off and on.
  const audit = compaction ? await auditThread(saver, { configurable: { thread_id: threadId } }) : undefined;
  const otherCount = Number(/turns:(\d+)/.exec(otherTurns ?? "")?.[1] ?? 0);
  const sent = [
    ...Array.from({ length: latencies.length }, (_, turn) => `main-${turn}`),
    ...Array.from({ length: otherCount }, (_, turn) => `other-${turn}`),
  ];
  let orphaned: number;
  if (audit) {
    const lostIds = new Set(
      audit.problems.filter((problem) => problem.code === "LOST_MESSAGE").map((problem) => problem.id),
    );
    orphaned = sent.filter((id) => lostIds.has(id)).length;
  } else {
    const head = await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } });
    const inHead = new Set(
      ((head?.checkpoint.channel_values as { messages?: BaseMessage[] } | undefined)?.messages ?? []).map(
        (message) => message.id,
      ),
    );
    orphaned = sent.filter((id) => !inHead.has(id)).length;
  }
  return {
    latencies,
    windows,
    errors,
    otherTurns,
    reports,
    summaries,
    twice,
    lost: audit ? audit.problems.length : -1,
    lostByCompaction: compaction ? await lostByCompaction(saver, threadId) : -1,
    orphaned,
    messagesEver: audit?.messagesEver ?? -1,
  };
}

async function scenario(
  name: string,
  saver: BaseCheckpointSaver,
  store: string,
  second: boolean,
): Promise<Array<Record<string, string | number>>> {
  const tag = randomUUID().slice(0, 8);
  const bare = await runOnce(saver, store, `bare-${tag}`, false, second);
  const wrapped = await runOnce(saver, store, `wrapped-${tag}`, true, second);
  const landed = wrapped.reports.filter((report) => report.status === "compacted");
  const row = (label: string, run: Run, base?: Run): Record<string, string | number> => ({
    scenario: name,
    compaction: label,
    turns: run.latencies.length,
    "p50 ms": percentile(run.latencies, 0.5).toFixed(1),
    "p95 ms": percentile(run.latencies, 0.95).toFixed(1),
    "p50 ratio": base ? (percentile(run.latencies, 0.5) / percentile(base.latencies, 0.5)).toFixed(2) : "",
    "p95 ratio": base ? (percentile(run.latencies, 0.95) / percentile(base.latencies, 0.95)).toFixed(2) : "",
    "max window": Math.max(...run.windows),
    landed: base ? `${landed.length} (${landed.filter((report) => report.rebased).length} rebased)` : "",
    "max after landing": base && landed.length > 0 ? Math.max(...landed.map((report) => report.tokensAfter ?? 0)) : "",
    "not landed": base
      ? run.reports
          .filter((report) => report.status !== "compacted")
          .map((report) => report.status)
          .join(",") || "0"
      : "",
    summaries: base ? `${run.summaries} (${run.twice} twice)` : "",
    errors: run.errors,
    "lost (audit)": base ? run.lost : "",
    "lost by compaction": base ? run.lostByCompaction : "",
    "user msgs orphaned": run.orphaned,
    "other process": run.otherTurns ?? "",
  });
  return [row("off", bare), row("on", wrapped, bare)];
}

export async function benchBusyThread(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "compaction-busy-"));
  const rows: Array<Record<string, string | number>> = [];
  try {
    const path = join(dir, "busy.sqlite");
    const sqlite = SqliteSaver.fromConnString(path);
    rows.push(...(await scenario("(a) SQLite, one process", sqlite, `sqlite:${path}`, false)));
    rows.push(...(await scenario("(b) SQLite, two processes", sqlite, `sqlite:${path}`, true)));
    sqlite.db.close();
    const postgres = await startPostgres();
    try {
      const schema = `busy_${randomUUID().replace(/-/g, "").slice(0, 10)}`;
      const pg = PostgresSaver.fromConnString(postgres.url, { schema });
      await pg.setup();
      rows.push(...(await scenario("(c) Postgres, two processes", pg, `postgres:${postgres.url}:${schema}`, true)));
      await pg.end();
    } finally {
      await postgres.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  printTable(
    `Busy thread: turns every ${TURN_INTERVAL_MS} ms for ${SECONDS} s, a ${SUMMARY_MS / 1000} s summarizer, tokenLimit ${TOKEN_LIMIT}, hardLimit ${HARD_LIMIT} ` +
      `(targets: p50 ratio <= 1.05, p95 ratio <= 1.25, window never above hardLimit, nothing lost; "max window": tokens the model received)`,
    rows,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchBusyThread();
}
