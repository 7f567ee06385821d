import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { createHash } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSummaryProvenance, isSummaryMessage, summaryText } from "../../src/messages/summary-message.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { createTeam } from "../support/team.js";
import { startChatCompletionsServer, type ChatCompletionsServer } from "../support/fakes/chat-completions-server.js";
import { createCustomGraph } from "../support/custom-graph.js";
import { runScript, ROOT, runTs } from "../support/run-script.js";

const THREAD = "demo-cli";
const exec = promisify(execFile);
let dir: string;
/** The --limit the compacting tests pass: under the demo thread's tokens (set in beforeAll). */
let limit: string;
let db: string;

function sha(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** Fold the WAL into the main file so the main file's bytes are the whole store. */
function settle(path: string): void {
  const handle = new Database(path);
  handle.pragma("wal_checkpoint(TRUNCATE)");
  handle.close();
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "compaction-cli-"));
  db = join(dir, "demo.sqlite");
  const demo = await runTs("scripts/demo.ts", [], {
    DATABASE_PATH: db,
    DEMO_THREAD_ID: THREAD,
    DEMO_TURNS: "10",
    DEMO_TOKEN_DELAY_MS: "0",
  });
  expect(demo.code, demo.stderr).toBe(0);
  expect(demo.stdout).toContain(`npm run compact -- inspect ${THREAD} --db`);
  // A limit the demo's thread is over, whatever its summaries weigh: 90% of its tokens.
  const inspected = await runScript(["inspect", THREAD, "--db", db, "--json"]);
  expect(inspected.code, inspected.stderr).toBe(0);
  limit = String(Math.floor(JSON.parse(inspected.stdout).tokens * 0.9));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("npm start (the demo)", () => {
  it("ends with the true number of compactions: each one printed once, as many as the thread's history holds", async () => {
    const path = join(dir, "demo-count.sqlite");
    const demo = await runTs("scripts/demo.ts", [], {
      DATABASE_PATH: path,
      DEMO_THREAD_ID: "demo-count",
      DEMO_TURNS: "14",
      DEMO_TOKEN_LIMIT: "1500",
      DEMO_TOKEN_DELAY_MS: "0",
    });
    expect(demo.code, demo.stderr).toBe(0);
    const done = /Done: 14 turns, (\d+) compactions\./.exec(demo.stdout);
    expect(done, demo.stdout.slice(-400)).not.toBeNull();
    const reported = Number(done![1]);
    const printed = demo.stdout.match(/⤷ compaction: /g)?.length ?? 0;
    const history = JSON.parse((await runScript(["history", "demo-count", "--db", path, "--json"])).stdout) as {
      checkpoints: Array<{ compaction: unknown; superseded: boolean }>;
    };
    const stored = history.checkpoints.filter((checkpoint) => checkpoint.compaction && !checkpoint.superseded).length;
    expect(reported).toBeGreaterThan(0);
    expect(printed).toBe(reported);
    expect(stored).toBe(reported);

    // Every follow-up command it prints works as printed (run by a shell from the project's folder), against the
    // demo's own limit: inspect judges the thread against 1,500, not the script's default of 4,000.
    const followUps = demo.stdout
      .split("\n")
      .filter((line) => line.startsWith("  npm run compact -- "))
      .map((line) => line.trim());
    expect(followUps.length).toBeGreaterThanOrEqual(4);
    // They only read (compact is printed with --dry-run): run side by side, each as a person would type it.
    const ran = await Promise.all(
      followUps.map(async (command) => {
        const result = await exec("bash", ["-c", command], {
          cwd: ROOT,
          encoding: "utf8",
          env: { ...process.env, NO_COLOR: "1" },
        }).then(
          ({ stdout }) => ({ code: 0, stdout, stderr: "" }),
          (error: { code?: number; stdout?: string; stderr?: string }) => ({
            code: error.code ?? 1,
            stdout: error.stdout ?? "",
            stderr: error.stderr ?? "",
          }),
        );
        return { command, ...result };
      }),
    );
    for (const { command, code, stdout, stderr } of ran) {
      expect(code, `${command}\n${stderr}`).toBe(0);
      if (command.includes(" inspect "))
        expect(stdout).toMatch(
          /limit 1,500 \([^)]*\)( {2}\(over the limit\))?\n[\s\S]*compactable: (yes|no — [\d,]+ tokens, not over the limit of 1,500)/,
        );
    }
  });
});

describe("npm start with OPENAI_API_KEY", () => {
  it("sends the team's calls and the summaries to OpenAI (a local Chat Completions server)", async () => {
    const server = await startChatCompletionsServer((request) =>
      String(request.messages[0]?.content ?? "").startsWith("You maintain the running summary")
        ? { content: "## Facts and figures\n- The team discussed the rounding test of the billing service" }
        : { content: "Understood: the rounding test of the billing service is noted, with the figures you gave." },
    );
    try {
      const path = join(dir, "demo-openai.sqlite");
      const demo = await runTs("scripts/demo.ts", [], {
        DATABASE_PATH: path,
        DEMO_THREAD_ID: "demo-openai",
        DEMO_TURNS: "12",
        DEMO_TOKEN_LIMIT: "700",
        OPENAI_API_KEY: "sk-test-not-a-real-key",
        OPENAI_BASE_URL: server.url,
      });
      expect(demo.code, demo.stderr).toBe(0);
      expect(demo.stdout).toMatch(/OpenAI gpt-4o-mini · summarizer: llm · limit 700 tokens/);
      const summaries = server.requests.filter((request) =>
        String(request.body.messages[0]?.content ?? "").startsWith("You maintain the running summary"),
      );
      expect(summaries.length).toBeGreaterThan(0);
      expect(Number(/Done: 12 turns, (\d+) compactions\./.exec(demo.stdout)?.[1])).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });
});

describe("the compaction script on a thread written by the demo", () => {
  it("inspects, plans, compacts, shows history and restores, with --json that parses", async () => {
    const inspected = await runScript(["inspect", THREAD, "--db", db, "--json", "--limit", limit]);
    expect(inspected.code, inspected.stderr).toBe(0);
    const inspection = JSON.parse(inspected.stdout);
    expect(inspection.overLimit).toBe(true);
    expect(inspection.compactable).toBe(true);
    expect(inspection.messages.length).toBeGreaterThan(10);

    settle(db);
    const before = sha(db);
    const dry = await runScript(["compact", THREAD, "--db", db, "--dry-run", "--json", "--limit", limit]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout).status).toBe("dry-run");
    settle(db);
    expect(sha(db)).toBe(before);

    const human = await runScript(["compact", THREAD, "--db", db, "--dry-run", "--limit", limit]);
    expect(human.stdout).toMatch(/plan: summarize \d+ of \d+ messages/);
    // Under the limit, the plan's line gives the reason nothing is written, and no plan of a cut no one asked for.
    const under = await runScript(["compact", THREAD, "--db", db, "--limit", "1000000"]);
    expect(under.code, under.stderr).toBe(0);
    const lines = under.stdout.trim().split("\n");
    expect(lines[1]).toMatch(/^plan: nothing to compact: [\d,]+ tokens, not over the limit of 1,000,000$/);
    expect(under.stdout).not.toMatch(/ratio|summarize \d+ messages/);
    expect(lines.at(-1)).toMatch(/^nothing written: [\d,]+ tokens, not over the limit of 1,000,000$/);

    const compacted = await runScript(["compact", THREAD, "--db", db, "--json", "--limit", limit]);
    expect(compacted.code, compacted.stderr).toBe(0);
    const report = JSON.parse(compacted.stdout).report;
    expect(report.status).toBe("compacted");
    expect(report.newCheckpointId).toBeTruthy();

    const history = JSON.parse((await runScript(["history", THREAD, "--db", db, "--json"])).stdout);
    const marked = history.checkpoints.filter((checkpoint: { compaction: unknown }) => checkpoint.compaction);
    expect(marked.at(-1).checkpointId).toBe(report.newCheckpointId);

    // The thread continues in the wrapper after the script's compaction.
    const saver = SqliteSaver.fromConnString(db);
    const supervisor = new CompactingSupervisor(createTeam(saver), { trigger: { tokens: 100_000 } });
    const result = await supervisor.invoke(
      { messages: [new HumanMessage("One more: what are the Stripe fees?")] },
      { configurable: { thread_id: THREAD } },
    );
    const messages = result.messages as BaseMessage[];
    expect(isSummaryMessage(messages[0])).toBe(true);
    expect(String(messages.at(-1)!.content)).toMatch(/^Here is what the team found/);
    saver.db.close();

    const restored = await runScript([
      "restore",
      THREAD,
      "--db",
      db,
      "--checkpoint",
      report.previousCheckpointId,
      "--json",
    ]);
    expect(restored.code, restored.stderr).toBe(0);
    const check = SqliteSaver.fromConnString(db);
    const head = await check.getTuple({ configurable: { thread_id: THREAD, checkpoint_ns: "" } });
    const old = await check.getTuple({
      configurable: { thread_id: THREAD, checkpoint_ns: "", checkpoint_id: report.previousCheckpointId },
    });
    const ids = (tuple: typeof head) =>
      ((tuple!.checkpoint.channel_values.messages as BaseMessage[]) ?? []).map((message) => message.id);
    expect(head!.checkpoint.id).toBe(JSON.parse(restored.stdout).newCheckpointId);
    expect(ids(head)).toEqual(ids(old));
    check.db.close();

    const listed = JSON.parse((await runScript(["list", "--db", db, "--json"])).stdout);
    expect(listed.threads.map((thread: { threadId: string }) => thread.threadId)).toContain(THREAD);
    for (const command of ["list", "inspect", "compact", "history", "restore"]) {
      const help = await runScript([command, "--help"]);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/Examples:/);
    }
  });
});

describe("--summary-log", () => {
  it("append writes the log the application's summaryLog writes, and a wrong value or command is named", async () => {
    const path = join(dir, "summary-log.sqlite");
    settle(db);
    copyFileSync(db, path);
    const summaryOf = async () => {
      const saver = SqliteSaver.fromConnString(path);
      const head = await saver.getTuple({ configurable: { thread_id: THREAD, checkpoint_ns: "" } });
      saver.db.close();
      return (head!.checkpoint.channel_values.messages as BaseMessage[]).find((message) => isSummaryMessage(message))!;
    };
    const compact = (...more: string[]) =>
      runScript(["compact", THREAD, "--db", path, "--json", "--limit", limit, "--summary-log", "append", ...more]);
    // The demo's thread holds a running summary: the script's compaction makes it the log's first segment, byte for
    // byte, and appends the new one after it.
    const running = summaryText(await summaryOf());
    expect(getSummaryProvenance(await summaryOf())!.segments).toBeUndefined();
    const first = await compact();
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).report.status).toBe("compacted");
    const summary = await summaryOf();
    expect(getSummaryProvenance(summary)!.segments).toHaveLength(2);
    expect(summaryText(summary).startsWith(running)).toBe(true);
    expect(summaryText(summary).length).toBeGreaterThan(running.length);
    const inspected = await runScript(["inspect", THREAD, "--db", path]);
    expect(inspected.stdout).toMatch(/^summary: covers .*; a log of 2 segment\(s\)$/m);

    const wrong = await compact("--dry-run", "--summary-log", "segments");
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("--summary-log");
    const elsewhere = await runScript(["inspect", THREAD, "--db", path, "--summary-log", "append"]);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toMatch(/--summary-log.*used with compact or watch/);
  });
});

describe("settings from the environment", () => {
  it("reads TOKEN_LIMIT as a fraction of the window and COMPACTION_RATIO, and the restore hint repeats the store", async () => {
    settle(db);
    const copy = join(dir, "hint.sqlite");
    copyFileSync(db, copy);
    const inspected = await runScript(["inspect", THREAD, "--db", copy, "--json"], { TOKEN_LIMIT: "0.5" });
    expect(inspected.code, inspected.stderr).toBe(0);
    // gpt-4o's window is 128,000 tokens.
    expect(JSON.parse(inspected.stdout).limit).toBe(64_000);

    const plan = async (ratio: string) => {
      const result = await runScript(["compact", THREAD, "--db", copy, "--dry-run", "--json", "--limit", limit], {
        COMPACTION_RATIO: ratio,
      });
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout).plan.summarize.messages as number;
    };
    expect(await plan("0.8")).toBeGreaterThan(await plan("0.2"));

    const compacted = await runScript(["compact", THREAD, "--db", copy, "--limit", limit]);
    expect(compacted.code, compacted.stderr).toBe(0);
    expect(compacted.stdout).toMatch(
      new RegExp(
        `undo with: npm run compact -- restore ${THREAD} --checkpoint [0-9a-f-]+ --db ${copy.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\)`,
      ),
    );
  });
});

describe("compact --all", () => {
  it("compacts every thread above the threshold and reports each", async () => {
    const path = join(dir, "many.sqlite");
    for (const [thread, turns] of [
      ["small", "2"],
      ["big-1", "9"],
      ["big-2", "9"],
    ] as const) {
      const seeded = await runTs("test/support/append-turns.ts", [path, thread, turns, thread]);
      expect(seeded.code, seeded.stderr).toBe(0);
    }
    const listed = JSON.parse((await runScript(["list", "--db", path, "--json"])).stdout) as {
      threads: Array<{ threadId: string; tokens: number }>;
    };
    const small = listed.threads.find((thread) => thread.threadId === "small")!.tokens;
    const result = await runScript([
      "compact",
      "--all",
      "--over",
      String(Math.max(small + 1, 1_200)),
      "--db",
      path,
      "--json",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const threads = (JSON.parse(result.stdout) as { threads: Array<{ threadId: string; status: string }> }).threads;
    expect(threads.map((thread) => thread.threadId).sort()).toEqual(["big-1", "big-2"]);
    expect(threads.every((thread) => thread.status === "compacted")).toBe(true);
    const human = await runScript(["compact", "--all", "--over", "100", "--db", path, "--dry-run"]);
    expect(human.stdout).toMatch(/\[1\/3\] .*dry-run/);
  });
});

describe("bad input: one clear line, a distinct exit code, nothing written", () => {
  let server: ChatCompletionsServer;
  let busyDb: string;
  let pausedDb: string;
  beforeAll(async () => {
    server = await startChatCompletionsServer(() => ({
      status: 500,
      error: { message: "summarizer backend down", type: "server_error" },
    }));
    busyDb = join(dir, "busy.sqlite");
    copyFileSync(db, busyDb);
    const saver = SqliteSaver.fromConnString(busyDb);
    const head = (await saver.getTuple({ configurable: { thread_id: THREAD, checkpoint_ns: "" } }))!;
    await saver.putWrites(
      head.config,
      [["messages", [new AIMessage({ id: "in-flight", content: "half a turn" })]]],
      "task-in-flight",
    );
    saver.db.close();
    pausedDb = join(dir, "paused.sqlite");
    const pausedSaver = SqliteSaver.fromConnString(pausedDb);
    const graph = createCustomGraph(pausedSaver);
    for (let index = 0; index < 5; index++)
      await graph.invoke(
        { messages: [new HumanMessage(`request ${index}`)] },
        { configurable: { thread_id: "paused" } },
      );
    await graph.invoke(
      { messages: [new HumanMessage("please approve the refund")] },
      { configurable: { thread_id: "paused" } },
    );
    pausedSaver.db.close();
    writeFileSync(join(dir, "text.sqlite"), "this is not a database\n".repeat(100));
    const other = new Database(join(dir, "other.sqlite"));
    other.exec("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES ('x');");
    other.close();
    for (const path of [db, busyDb, pausedDb]) settle(path);
  });
  afterAll(async () => server.close());

  const cases: Array<[string, () => string[], number, RegExp, Record<string, string>?]> = [
    ["a missing file", () => ["inspect", THREAD, "--db", join(dir, "missing.sqlite")], 3, /no SQLite file/],
    ["a file that is not SQLite", () => ["list", "--db", join(dir, "text.sqlite")], 4, /not a SQLite database/],
    [
      "a SQLite file that is not a checkpoint store",
      () => ["list", "--db", join(dir, "other.sqlite")],
      4,
      /not a LangGraph checkpoint store/,
    ],
    [
      "an unreachable Postgres",
      () => ["list", "--postgres", "postgresql://app:hunter2@127.0.0.1:9/app"],
      3,
      /cannot reach Postgres at postgresql:\/\/app:\*\*\*@/,
    ],
    ["an unknown thread", () => ["compact", "no-such-thread", "--db", db], 5, /not in this store/],
    ["a busy thread", () => ["compact", THREAD, "--db", busyDb], 6, /not idle: .*pending write/],
    ["an interrupted thread", () => ["compact", "paused", "--db", pausedDb], 6, /interrupt/],
    [
      "an out-of-range --ratio",
      () => ["compact", THREAD, "--db", db, "--ratio", "1.5"],
      2,
      /--ratio must be .* got 1\.5/,
    ],
    [
      "a summarizer error",
      () => ["compact", THREAD, "--db", db, "--summarizer", "openai", "--limit", limit],
      7,
      /summar/i,
      { OPENAI_API_KEY: "sk-secret-test-key" },
    ],
    [
      "a checkpoint that is not the thread's",
      () => ["restore", THREAD, "--db", db, "--checkpoint", "1f000000-0000-6000-8000-000000000000"],
      8,
      /has no checkpoint 1f000000-0000-6000-8000-000000000000: another thread.s, or pruned/,
    ],
    ["an unknown command", () => ["shrink", THREAD, "--db", db], 2, /unknown command "shrink"/],
    [
      "an unknown option",
      () => ["compact", THREAD, "--db", db, "--ratoi", "0.5"],
      2,
      /unknown option --ratoi\. Did you mean --ratio\?/,
    ],
    ["restore without --checkpoint", () => ["restore", THREAD, "--db", db], 2, /needs --checkpoint/],
    ["no store given", () => ["list"], 2, /no store given/],
    [
      "an invalid TOKEN_LIMIT",
      () => ["inspect", THREAD, "--db", db],
      2,
      /TOKEN_LIMIT must be .*got "-3"/,
      { TOKEN_LIMIT: "-3" },
    ],
    [
      "an out-of-range COMPACTION_RATIO",
      () => ["compact", THREAD, "--db", db],
      2,
      /COMPACTION_RATIO must be .*got "1\.5"/,
      { COMPACTION_RATIO: "1.5" },
    ],
  ];

  it.each(cases)("%s", async (_, args, code, message, env) => {
    const files = [db, busyDb, pausedDb, join(dir, "text.sqlite"), join(dir, "other.sqlite")];
    const before = files.map(sha);
    const result = await runScript(args(), { ...env, OPENAI_BASE_URL: server.url });
    expect(result.code, result.stderr).toBe(code);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toContain("sk-secret-test-key");
    for (const path of [db, busyDb, pausedDb]) settle(path);
    expect(files.map(sha)).toEqual(before);
  });
});
