/**
 * `compact-thread watch` on Postgres (jobs on pg-boss): one sweep and its jobs with --once (a JSON line per thread and
 * one for the run), the long-running form stopped by SIGTERM (exit 0, a summary in flight abandoned), and bad input
 * refused before anything is written (exit 2, or 3 for a store it cannot reach) — a SQLite file among it.
 */
import { spawn } from "node:child_process";
import { createServer, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BaseMessage } from "@langchain/core/messages";
import { auditThread } from "../../src/engine/audit.js";
import { getSummaryProvenance, isSummaryMessage } from "../../src/messages/summary-message.js";
import { createTestAgent, seedTurns } from "../support/agents.js";
import { childArgs, ROOT } from "../support/child-entry.js";
import { compactThread } from "../support/run-script.js";
import { startChatCompletionsServer, type ServerReply } from "../support/fakes/chat-completions-server.js";
import { createStore, type TestStore } from "../support/savers.js";

let store: TestStore;
/** The flags that name the test's store. */
const at = (of: TestStore = store) => ["--postgres", of.location.url!, "--schema", of.location.schema!];
/** Every checkpoint id of the store's threads, in order: what a command that wrote nothing leaves as it was. */
async function checkpoints(of: TestStore = store): Promise<string[]> {
  const ids: string[] = [];
  for await (const tuple of of.saver.list({})) ids.push(tuple.checkpoint.id);
  return ids.sort();
}

beforeAll(async () => {
  store = await createStore("postgres");
  const { agent } = createTestAgent(store.saver);
  for (const thread of ["big-a", "big-b"]) await seedTurns(agent, thread, 30);
  await seedTurns(agent, "small", 2);
});
afterAll(async () => await store.close());

describe("compact-thread watch", () => {
  it("refuses bad input before writing anything: exit 2 (or 3 for an unreachable store), one line naming the value", async () => {
    const before = await checkpoints();
    for (const [args, code, words] of [
      [["watch", ...at(), "--concurrency", "0"], 2, /--concurrency.*"0"/],
      [["watch", ...at(), "--concurrency", "two"], 2, /--concurrency.*"two"/],
      [["watch", ...at(), "--idle=-5"], 2, /--idle.*"-5"/],
      [["watch", ...at(), "--poll", "10"], 2, /--poll.*"10"/],
      [["watch", ...at(), "--keep", "0"], 2, /--keep must be an integer >= 1.*"0"/],
      [["watch", ...at(), "--summary-log", "segments"], 2, /--summary-log.*"segments"/],
      [["watch", "big-a", ...at()], 2, /watch takes no thread/],
      [
        ["watch", "--once", "--db", "app.sqlite"],
        2,
        /watch runs compaction jobs on Postgres \(pg-boss\), not on a SQLite file/,
      ],
      [["watch", "--once", "--postgres", "postgres://nobody@127.0.0.1:1/none"], 3, /127\.0\.0\.1:1|reach|connect/i],
      [["watch", "--once", "--postgres", "postgres://user@:bad:port/x"], 3, /Invalid URL/],
    ] as Array<[string[], number, RegExp]>) {
      const result = await compactThread(args);
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(code);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(result.stderr).toMatch(words);
    }
    expect(await checkpoints()).toEqual(before);
  });

  it("--once --json: one line per thread and one for the run; the threads over the limit compacted, nothing lost", async () => {
    const result = await compactThread(["watch", ...at(), "--once", "--idle", "0", "--limit", "1500", "--json"]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
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
    expect(lines.at(-1)).toMatchObject({ type: "once", changed: 3, jobs: 3, compacted: 2, skipped: 1, failed: 0 });
    for (const thread of ["big-a", "big-b", "small"])
      expect((await auditThread(store.saver, { configurable: { thread_id: thread } })).problems).toEqual([]);
  });

  it("--summary-log append: the threads it compacts get a log of segments, as the application's summaryLog writes", async () => {
    const log = await createStore("postgres");
    await seedTurns(createTestAgent(log.saver).agent, "log", 30);
    const result = await compactThread([
      "watch",
      ...at(log),
      "--once",
      "--idle",
      "0",
      "--limit",
      "1500",
      "--summary-log",
      "append",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const head = await log.saver.getTuple({ configurable: { thread_id: "log", checkpoint_ns: "" } });
    await log.close();
    const summary = (head!.checkpoint.channel_values.messages as BaseMessage[]).find(isSummaryMessage)!;
    expect(getSummaryProvenance(summary)!.segments).toHaveLength(1);
  });

  it("runs jobs until SIGTERM, then exits 0", async () => {
    const grows = await createStore("postgres");
    await seedTurns(createTestAgent(grows.saver).agent, "grows", 30);
    const child = spawn(
      process.execPath,
      [
        ...childArgs("scripts/compact-thread.ts"),
        "watch",
        ...at(grows),
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
    // The thread's compaction is the signal to stop it (no delay involved).
    await new Promise<void>((resolve) => {
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('"status":"compacted"')) resolve();
      });
    });
    child.kill("SIGTERM");
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code, stderr).toBe(0);
    const lines = stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.at(-1)).toMatchObject({ type: "stopped", compacted: 1, errors: 0 });
    expect((await auditThread(grows.saver, { configurable: { thread_id: "grows" } })).problems).toEqual([]);
    await grows.close();
  });

  it("SIGTERM while a summary hangs: the summary is abandoned, nothing written, exit 0", async () => {
    const hangs = await createStore("postgres");
    const { agent } = createTestAgent(hangs.saver);
    await seedTurns(agent, "hangs", 30);
    const headBefore = (await hangs.saver.getTuple({ configurable: { thread_id: "hangs" } }))!.checkpoint.id;
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
          ...at(hangs),
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
    expect((await hangs.saver.getTuple({ configurable: { thread_id: "hangs" } }))!.checkpoint.id).toBe(headBefore);
    // Nothing holds the thread: a compaction right after takes it.
    const compacted = await compactThread(["compact", "hangs", ...at(hangs), "--limit", "1500", "--json"]);
    expect(compacted.code, compacted.stderr).toBe(0);
    await hangs.close();
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
