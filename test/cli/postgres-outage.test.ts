/**
 * Postgres going away in the middle of every command of the script: a fast shutdown of the server (these tests'
 * own server), its sessions terminated (`pg_terminate_backend`, what a shutdown or an administrator does to them), or
 * the connections cut (a network failure, through test/support/pg-proxy.ts). The point is chosen by what the
 * command sends, not by time: a reading command's first query after opening the store, a writing command's COMMIT.
 * Every command exits 3 with one line on stderr, and nothing is written.
 */
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HistoryManager } from "../../src/index.js";
import { createTestAgent, runTurns, seedThread } from "../support/agents.js";
import { startPgProxy, type HeldChunk, type PgProxy } from "../support/pg-proxy.js";
import { startPostgres, type RunningPostgres } from "../support/postgres-server.js";
import { compactThread } from "../support/run-script.js";

const SCHEMA = "outage";
let postgres: RunningPostgres;
let proxy: PgProxy;
let earlier: string;

async function withPool<T>(work: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = new pg.Pool({ connectionString: postgres.url, max: 1 });
  // A session ended by the server while the pool closes (a shutdown, a terminate) is not this test's failure.
  pool.on("error", () => undefined);
  try {
    return await work(pool);
  } finally {
    await pool.end();
  }
}

/** The rows a write would change. */
const rows = () =>
  withPool(async (pool) => {
    const counts: number[] = [];
    for (const table of [
      "checkpoints",
      "checkpoint_writes",
      "checkpoint_blobs",
      "compaction_recall",
      "compaction_recall_terms",
    ]) {
      counts.push(Number((await pool.query(`SELECT COUNT(*) AS n FROM ${SCHEMA}.${table}`)).rows[0].n));
    }
    return counts.join("/");
  });

type Outage = "stop" | "terminate" | "cut";

async function takeAway(outage: Outage, held: HeldChunk): Promise<Outage> {
  if (outage === "stop" && postgres.control) {
    await postgres.control.shutDown();
    return "stop";
  }
  if (outage === "cut") {
    proxy.cut();
    return "cut";
  }
  await withPool((pool) =>
    pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE client_port = ANY($1::int[]) AND pid <> pg_backend_pid()`,
      [held.upstreamPorts],
    ),
  );
  return "terminate";
}

/** The first query after the store was opened (its first query checks the tables with to_regclass). */
const firstRead = () => (text: string) => /select/i.test(text) && !text.includes("to_regclass");
/** The COMMIT of the transaction that sent `marker` (the compare-and-swap's lock, reindex's DELETE). */
const commitAfter = (marker: string) => {
  let seen = false;
  return (text: string) => {
    if (text.includes(marker)) seen = true;
    return seen && text.includes("COMMIT");
  };
};

beforeAll(async () => {
  postgres = await startPostgres();
  const saver = PostgresSaver.fromConnString(postgres.url, { schema: SCHEMA });
  await saver.setup();
  const { agent } = createTestAgent(saver);
  for (const thread of ["outage-a", "outage-b"]) {
    await seedThread(agent, thread, 14);
    await new HistoryManager({ checkpointer: saver, trigger: { tokens: 400 } }).compactThread({
      configurable: { thread_id: thread },
    });
    await runTurns(agent, thread, 10, { from: 14, prefix: "later" });
  }
  const head = await saver.getTuple({ configurable: { thread_id: "outage-a", checkpoint_ns: "" } });
  earlier = head!.parentConfig!.configurable!.checkpoint_id as string;
  await saver.end();
  proxy = await startPgProxy(postgres.url);
});

afterAll(async () => {
  await proxy?.close();
  await postgres?.stop();
});

/** [command, its arguments, where the server goes away, how] */
const CASES: Array<[string, () => string[], () => (text: string) => boolean, Outage]> = [
  ["list", () => ["list"], firstRead, "terminate"],
  ["inspect", () => ["inspect", "outage-a"], firstRead, "terminate"],
  ["history", () => ["history", "outage-a"], firstRead, "cut"],
  ["search", () => ["search", "outage-a", "invoice"], firstRead, "cut"],
  ["compact", () => ["compact", "outage-a", "--limit", "400"], () => commitAfter("hashtextextended($1"), "stop"],
  ["compact --all", () => ["compact", "--all", "--over", "400"], () => commitAfter("hashtextextended($1"), "cut"],
  [
    "restore",
    () => ["restore", "outage-a", "--checkpoint", earlier],
    () => commitAfter("hashtextextended($1"),
    "terminate",
  ],
  ["reindex", () => ["reindex", "outage-a"], () => commitAfter("DELETE FROM"), "stop"],
  [
    "watch --once",
    () => ["watch", "--once", "--idle", "0", "--limit", "400"],
    () => commitAfter("hashtextextended($1"),
    "cut",
  ],
];

describe("Postgres going away mid-command", () => {
  it.each(CASES)("%s: exit 3, one line on stderr, nothing written", async (_, argv, trigger, outage) => {
    const before = await rows();
    const tripped = proxy.arm(trigger());
    const run = compactThread([...argv(), "--postgres", proxy.url, "--schema", SCHEMA]);
    const held = await Promise.race([
      tripped,
      run.then((result) =>
        Promise.reject(new Error(`finished before the outage (${result.code}): ${result.stdout}${result.stderr}`)),
      ),
    ]);
    const done = await takeAway(outage, held);
    held.release();
    const result = await run;
    if (done === "stop") await postgres.control!.start();
    expect(result.code, `${done}: ${result.stderr}`).toBe(3);
    expect(result.stderr.trim().split("\n"), result.stderr).toHaveLength(1);
    expect(result.stderr).toMatch(/store is unavailable|could not be read/);
    expect(await rows()).toBe(before);
  });
});
