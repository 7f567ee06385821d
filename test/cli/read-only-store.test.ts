/**
 * A SQLite store in WAL mode that the script's user can read but not write (nor the directory beside it): the
 * reading commands work, the writing ones exit 3 (STORE_READ_ONLY) and leave the file's bytes as they were.
 * The file is 0444 in a 0555 directory. Run as root, the script runs in a new user namespace (`unshare -U`), where
 * it keeps its uid for reading but loses root's power to override permissions, so the modes apply as to any user;
 * otherwise the modes apply as they are.
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTs } from "../support/run-script.js";

const THREAD = "read-only";
const asRoot = process.getuid?.() === 0;
const reader = asRoot ? { prefix: ["unshare", "-U"] } : {};
let dir: string;
let store: string;

async function writeThread(path: string): Promise<void> {
  const saver = SqliteSaver.fromConnString(path);
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state) => ({
      messages: [new AIMessage(`answer ${state.messages.length}: ${"the invoice total is 4,210 EUR. ".repeat(12)}`)],
    }))
    .addEdge("__start__", "agent")
    .compile({ checkpointer: saver });
  for (let turn = 0; turn < 5; turn++)
    await graph.invoke({ messages: [new HumanMessage(`question ${turn}`)] }, { configurable: { thread_id: THREAD } });
  saver.db.close();
}

const sha = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");
const script = (args: string[]) =>
  runTs("scripts/compact-thread.ts", [...args, "--db", store], { HOME: tmpdir() }, 120_000, reader);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "compaction-read-only-"));
  store = join(dir, "app.sqlite");
  await writeThread(store);
  chmodSync(store, 0o444);
  chmodSync(dir, 0o555);
});

afterAll(() => {
  chmodSync(dir, 0o755);
  rmSync(dir, { recursive: true, force: true });
});

describe("compact-thread on a SQLite store it cannot write (WAL mode)", () => {
  it("the store really is in WAL mode, closed cleanly (no -wal, no -shm beside it)", () => {
    // Read from the header (bytes 18-19: 2 = WAL) rather than by opening it, which would create a -shm file.
    const header = readFileSync(store).subarray(18, 20);
    expect([...header]).toEqual([2, 2]);
    expect(existsSync(`${store}-wal`) || existsSync(`${store}-shm`)).toBe(false);
  });

  it("list, inspect, history (--transcript), compact --dry-run and prune --dry-run work", async () => {
    const before = sha(store);
    const list = await script(["list"]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(THREAD);
    for (const args of [
      ["inspect", THREAD],
      ["history", THREAD],
      ["history", THREAD, "--transcript"],
      ["compact", THREAD, "--dry-run", "--json"],
      ["prune", THREAD, "--dry-run", "--json"],
    ]) {
      const result = await script(args);
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(0);
    }
    expect(sha(store)).toBe(before);
  });

  it("compact, restore, reindex and prune exit 3 naming the store, and write nothing", async () => {
    const before = sha(store);
    for (const args of [
      ["compact", THREAD],
      ["restore", THREAD, "--checkpoint", "x"],
      ["reindex", THREAD],
      ["prune", THREAD],
    ]) {
      const result = await script(args);
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(3);
      expect(result.stderr).toContain(`this process cannot write ${store}`);
    }
    expect(sha(store)).toBe(before);
  });

  it("a write-ahead log holding changes it cannot read is refused with exit 3, not read stale", async () => {
    const walDir = mkdtempSync(join(tmpdir(), "compaction-read-only-wal-"));
    try {
      const source = join(walDir, "source.sqlite");
      await writeThread(source);
      const writer = new Database(source);
      writer.pragma("wal_autocheckpoint = 0");
      writer.exec("CREATE TABLE later_change (x)");
      expect(statSync(`${source}-wal`).size).toBeGreaterThan(0);
      const copy = join(walDir, "copy");
      // The file and its log as a crashed writer leaves them: the log's changes are not in the main file.
      mkdirSync(copy);
      copyFileSync(source, join(copy, "app.sqlite"));
      copyFileSync(`${source}-wal`, join(copy, "app.sqlite-wal"));
      writer.close();
      chmodSync(copy, 0o555);
      const result = await runTs(
        "scripts/compact-thread.ts",
        ["list", "--db", join(copy, "app.sqlite")],
        { HOME: tmpdir() },
        120_000,
        reader,
      );
      chmodSync(copy, 0o755);
      expect(result.code, result.stderr).toBe(3);
      expect(result.stderr).toMatch(/write-ahead log .*app\.sqlite-wal holds changes not yet in the file/);
    } finally {
      rmSync(walDir, { recursive: true, force: true });
    }
  });
});
