/**
 * A SQLite file whose lock another process holds (test/support/lock-holder.ts), in both journal modes. The script
 * and the library wait for the busy timeout, then fail with STORE_LOCKED (the script: exit 10 and one line naming
 * the lock), never a raw SqliteError or "is not a SQLite database", and write nothing.
 * - WAL: the holder has the write lock; readers go on, so the reading commands work.
 * - Rollback journal: the holder has an exclusive lock; even reading waits, so every command exits 10.
 */
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CompactionError, HistoryManager, reindexThread } from "../../src/index.js";
import { runScriptInProcess } from "../support/in-process-script.js";
import { createTestAgent, runTurns, seedThread } from "../support/agents.js";
import { holdLock } from "../support/lock-holder.js";

const THREAD = "locked";
const BUSY = ["--busy-timeout", "250"];
let dir: string;
let wal: string;
let rollback: string;
let earlier: string;

/** Checkpoints, writes and recall rows: what a write would change. */
function rows(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    const count = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    return `${count("checkpoints")}/${count("writes")}/${count("compaction_recall")}`;
  } finally {
    db.close();
  }
}

const script = (argv: string[]) => runScriptInProcess(argv);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "compaction-locked-"));
  wal = join(dir, "wal.sqlite");
  const saver = SqliteSaver.fromConnString(wal);
  const { agent } = createTestAgent(saver);
  await seedThread(agent, THREAD, 14);
  await new HistoryManager({ checkpointer: saver, trigger: { tokens: 400 } }).compactThread({
    configurable: { thread_id: THREAD },
  });
  // Turns after the compaction: the head is over the limit again, and compactable.
  await runTurns(agent, THREAD, 10, { from: 14, prefix: "later" });
  const head = await saver.getTuple({ configurable: { thread_id: THREAD } });
  earlier = head!.parentConfig!.configurable!.checkpoint_id as string;
  saver.db.pragma("wal_checkpoint(TRUNCATE)");
  saver.db.close();
  rollback = join(dir, "rollback.sqlite");
  copyFileSync(wal, rollback);
  const db = new Database(rollback);
  db.pragma("journal_mode = DELETE");
  db.close();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `work` while another process holds `path`'s lock; nothing may be written meanwhile. */
async function whileLocked(path: string, kind: "immediate" | "exclusive", work: () => Promise<void>): Promise<void> {
  const before = rows(path);
  const lock = await holdLock(path, kind);
  try {
    await work();
  } finally {
    await lock.release();
  }
  expect(rows(path)).toBe(before);
}

/** Runs the script on the locked `path`: exit 10, naming the lock. Returns its stderr. */
async function lockedExit(argv: string[], path: string): Promise<string> {
  const { code, stderr } = await script([...argv, "--db", path, ...BUSY]);
  expect(code, `${argv.join(" ")}: ${stderr}`).toBe(10);
  expect(stderr).toContain("held the SQLite database's lock past the busy timeout");
  return stderr;
}

const WRITING = () => [
  ["compact", THREAD, "--limit", "400"],
  ["restore", THREAD, "--checkpoint", earlier],
  ["reindex", THREAD],
];
const READING = () => [["list"], ["inspect", THREAD], ["history", THREAD], ["search", THREAD, "invoice"]];

describe("a SQLite store another process has locked", () => {
  it("WAL: the reading commands work; compact, restore and reindex exit 10 naming the lock, and write nothing", async () => {
    await whileLocked(wal, "immediate", async () => {
      for (const argv of READING()) {
        const { code, stderr } = await script([...argv, "--db", wal, ...BUSY]);
        expect(code, `${argv.join(" ")}: ${stderr}`).toBe(0);
      }
      for (const argv of WRITING()) expect((await lockedExit(argv, wal)).trim().split("\n")).toHaveLength(1);
    });
  });

  it('rollback journal: every command exits 10 naming the lock, not 4 ("not a SQLite database"), and writes nothing', async () => {
    await whileLocked(rollback, "exclusive", async () => {
      for (const argv of [...READING(), ...WRITING()])
        expect(await lockedExit(argv, rollback)).not.toContain("is not a SQLite database");
    });
  });

  it("the library: reindexThread and compactThread throw STORE_LOCKED, not a raw SqliteError, and write nothing", async () => {
    const saver = new SqliteSaver(new Database(wal, { timeout: 250 }));
    const config = { configurable: { thread_id: THREAD } };
    try {
      await whileLocked(wal, "immediate", async () => {
        for (const call of [
          () => reindexThread(saver, config),
          () => new HistoryManager({ checkpointer: saver, trigger: { tokens: 400 } }).compactThread(config),
        ]) {
          const error = await call().then(
            () => undefined,
            (thrown: unknown) => thrown,
          );
          expect(CompactionError.isInstance(error), String(error)).toBe(true);
          expect((error as CompactionError).code).toBe("STORE_LOCKED");
        }
      });
    } finally {
      saver.db.close();
    }
  });

  it("--busy-timeout must be a whole number of milliseconds, and only with --db", async () => {
    expect((await script(["list", "--db", wal, "--busy-timeout", "soon"])).code).toBe(2);
    expect((await script(["list", "--db", wal, "--busy-timeout=-1"])).stderr).toContain('"-1"');
    expect((await script(["list", "--postgres", "postgres://127.0.0.1:1/x", "--busy-timeout", "10"])).code).toBe(2);
  });
});
