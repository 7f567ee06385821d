/**
 * `compact-thread watch`: one pass with --once (a JSON line per thread and per pass), the long-running form stopped
 * by SIGTERM after the pass in flight (exit 0), and bad input refused before anything is written (exit 2, or 3 for a
 * store it cannot reach), the store's bytes unchanged.
 */
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { spawn } from "node:child_process";
import { createServer, type Socket } from "node:net";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BaseMessage } from "@langchain/core/messages";
import { auditThread } from "../../src/engine/audit.js";
import { getSummaryProvenance, isSummaryMessage } from "../../src/messages/summary-message.js";
import { createTestAgent, seedTurns } from "../support/agents.js";
import { childArgs, ROOT } from "../support/child-entry.js";
import { compactThread } from "../support/run-script.js";
import { startChatCompletionsServer, type ServerReply } from "../support/fakes/chat-completions-server.js";

let dir: string;
let db: string;
const sha = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "compaction-watch-"));
  db = join(dir, "app.sqlite");
  const saver = SqliteSaver.fromConnString(db);
  const { agent } = createTestAgent(saver);
  for (const thread of ["big-a", "big-b"]) await seedTurns(agent, thread, 30);
  await seedTurns(agent, "small", 2);
  saver.db.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("compact-thread watch", () => {
  it("refuses bad input before writing anything: exit 2 (or 3 for an unreachable store), one line naming the value", async () => {
    const before = sha(db);
    for (const [args, code, words] of [
      [["watch", "--db", db, "--concurrency", "0"], 2, /--concurrency.*"0"/],
      [["watch", "--db", db, "--concurrency", "two"], 2, /--concurrency.*"two"/],
      [["watch", "--db", db, "--idle=-5"], 2, /--idle.*"-5"/],
      [
        ["watch", "--db", db, "--host-concurrency", "0"],
        2,
        /--host-concurrency must be a whole number of compactions.*"0"/,
      ],
      [["watch", "--db", db, "--keep", "0"], 2, /--keep must be an integer >= 1.*"0"/],
      [["watch", "--db", db, "--summary-log", "segments"], 2, /--summary-log.*"segments"/],
      [["watch", "big-a", "--db", db], 2, /watch takes no thread/],
      [["watch", "--once", "--postgres", "postgres://nobody@127.0.0.1:1/none"], 3, /127\.0\.0\.1:1|reach|connect/i],
      [["watch", "--once", "--db", join(dir, "missing.sqlite")], 3, /no SQLite file/],
      [["watch", "--once", "--postgres", "postgres://user@:bad:port/x"], 3, /Invalid URL/],
    ] as Array<[string[], number, RegExp]>) {
      const result = await compactThread(args);
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(code);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(result.stderr).toMatch(words);
    }
    expect(sha(db)).toBe(before);
  });

  it("--once --json: one line per thread and one per pass; the threads over the limit compacted, nothing lost", async () => {
    const result = await compactThread(["watch", "--db", db, "--once", "--idle", "0", "--limit", "1500", "--json"]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    // Threads come in an order of the worker's own (workers side by side start on different ones).
    expect(
      lines
        .filter((line) => line.type === "thread")
        .map((line) => [line.threadId, line.status])
        .sort(),
    ).toEqual([
      ["big-a", "compacted"],
      ["big-b", "compacted"],
      ["small", "skipped"],
    ]);
    expect(lines.at(-1)).toMatchObject({
      type: "pass",
      pass: 1,
      changed: 3,
      headsRead: 3,
      candidates: 3,
      compacted: 2,
      skipped: 1,
      failed: 0,
    });
    const saver = SqliteSaver.fromConnString(db);
    for (const thread of ["big-a", "big-b", "small"])
      expect((await auditThread(saver, { configurable: { thread_id: thread } })).problems).toEqual([]);
    saver.db.close();
  });

  it("--summary-log append: the threads it compacts get a log of segments, as the application's summaryLog writes", async () => {
    const path = join(dir, "log.sqlite");
    const saver = SqliteSaver.fromConnString(path);
    await seedTurns(createTestAgent(saver).agent, "log", 30);
    saver.db.close();
    const result = await compactThread([
      "watch",
      "--db",
      path,
      "--once",
      "--idle",
      "0",
      "--limit",
      "1500",
      "--summary-log",
      "append",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const check = SqliteSaver.fromConnString(path);
    const head = await check.getTuple({ configurable: { thread_id: "log", checkpoint_ns: "" } });
    check.db.close();
    const summary = (head!.checkpoint.channel_values.messages as BaseMessage[]).find(isSummaryMessage)!;
    expect(getSummaryProvenance(summary)!.segments).toHaveLength(1);
  });

  it("runs until SIGTERM, then finishes the pass in flight and exits 0", async () => {
    const child = spawn(
      process.execPath,
      [
        ...childArgs("scripts/compact-thread.ts"),
        "watch",
        "--db",
        db,
        "--idle",
        "0",
        "--limit",
        "1500",
        "--poll",
        "600000",
        "--json",
      ],
      {
        cwd: ROOT,
        env: { ...process.env, OPENAI_API_KEY: "", POSTGRES_URL: "", DATABASE_PATH: "", NO_COLOR: "1" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    // The first pass's own line is the signal to stop it (no delay involved).
    await new Promise<void>((resolve) => {
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('"type":"pass"')) resolve();
      });
    });
    child.kill("SIGTERM");
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code, stderr).toBe(0);
    const lines = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.at(-1)).toMatchObject({ type: "stopped", passes: 1, errors: 0 });
  });

  it("SIGTERM while a summary hangs: the summary is abandoned, nothing written, the lease given back, exit 0", async () => {
    const saver = SqliteSaver.fromConnString(db);
    const { agent } = createTestAgent(saver);
    await seedTurns(agent, "hangs", 30);
    const headBefore = (await saver.getTuple({ configurable: { thread_id: "hangs" } }))!.checkpoint.id;
    saver.db.close();
    // A model server that receives the summary request and never answers (the default summaryTimeoutMs is 2 minutes).
    let received!: () => void;
    const asked = new Promise<void>((resolve) => (received = resolve));
    const server = await startChatCompletionsServer(() => {
      received();
      return new Promise<ServerReply>(() => undefined);
    });
    try {
      const child = spawn(
        process.execPath,
        [
          ...childArgs("scripts/compact-thread.ts"),
          "watch",
          "--db",
          db,
          "--idle",
          "0",
          "--limit",
          "1500",
          "--summarizer",
          "openai",
          "--json",
        ],
        {
          cwd: ROOT,
          env: {
            ...process.env,
            OPENAI_API_KEY: "sk-test-hang",
            OPENAI_BASE_URL: server.url,
            POSTGRES_URL: "",
            DATABASE_PATH: "",
            NO_COLOR: "1",
          },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      // Stopped once the summarizer's request has reached the server (the summary is in flight and hangs).
      await asked;
      child.kill("SIGTERM");
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
      expect(code, stderr).toBe(0);
      const lines = stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines.filter((line) => line.type === "thread" && line.skip === "stopped").length).toBeGreaterThan(0);
      expect(lines.at(-1)).toMatchObject({ type: "stopped" });
    } finally {
      await server.close();
    }
    const after = SqliteSaver.fromConnString(db);
    expect((await after.getTuple({ configurable: { thread_id: "hangs" } }))!.checkpoint.id).toBe(headBefore);
    after.db.close();
    // The lease was given back: a compaction right after takes the thread.
    const compacted = await compactThread(["compact", "hangs", "--db", db, "--limit", "1500", "--json"]);
    expect(compacted.code, compacted.stderr).toBe(0);
  });

  it("SIGTERM while the store is still being opened: exit 0 at once, nothing taken", async () => {
    // A "Postgres" that accepts the connection and never answers: the start-up hangs in the store's opening.
    const sockets: Socket[] = [];
    let connected!: () => void;
    const reached = new Promise<void>((resolve) => (connected = resolve));
    const server = createServer((socket) => {
      sockets.push(socket);
      connected();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const child = spawn(
        process.execPath,
        [
          ...childArgs("scripts/compact-thread.ts"),
          "watch",
          "--postgres",
          `postgres://nobody@127.0.0.1:${port}/none`,
          "--json",
        ],
        {
          cwd: ROOT,
          env: { ...process.env, OPENAI_API_KEY: "", POSTGRES_URL: "", DATABASE_PATH: "", NO_COLOR: "1" },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      // The child reached the store (its modules loaded, the stop heard): stopped there.
      await reached;
      child.kill("SIGTERM");
      const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
        child.on("close", (exit, by) => resolve([exit, by])),
      );
      expect({ code, signal }, stderr).toEqual({ code: 0, signal: null });
      expect(stderr).toMatch(/stopped before watching began/);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
