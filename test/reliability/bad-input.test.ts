/**
 * The bad-input table: wrong values across the public API and the script. Each must fail with a typed error — a
 * stable `code` and the offending value in the message (the script: its exit code and the value on stderr) — and
 * write nothing (the store's rows are counted before and after every case).
 */
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { Annotation, END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import { closeSync, copyFileSync, mkdtempSync, openSync, rmSync, statSync, writeSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  CompactingSupervisor,
  CompactionError,
  ExtractiveSummarizer,
  HistoryManager,
  LlmSummarizer,
  type CompactingSupervisorOptions,
} from "../../src/index.js";
import { planCompaction } from "../../src/internal.js";
import { openPostgresStore } from "../../src/store/open-postgres.js";
import { openSqliteStore } from "../../src/store/open-sqlite.js";
import { main } from "../../src/cli/main.js";
import { ToolOutputArchive } from "../../src/archive/archive.js";
import { createTestAgent, runTurns } from "../support/agents.js";
import { recordFigures } from "../support/reliability.js";

let dir: string;
let path: string;
let saver: SqliteSaver;
let agent: ReturnType<typeof createTestAgent>["agent"];
const THREAD = "bad-input";
const config = { configurable: { thread_id: THREAD } };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "compaction-bad-input-"));
  path = join(dir, "store.sqlite");
  saver = SqliteSaver.fromConnString(path);
  agent = createTestAgent(saver).agent;
  await runTurns(agent, THREAD, 8);
  // A thread whose messages channel holds plain objects, not messages.
  const raw = await saver.getTuple(config);
  const broken = {
    ...raw!.checkpoint,
    id: "1f0c0000-0000-6000-8000-000000000001",
    channel_values: { messages: [{ role: "user", content: "plain" }, "text"] },
  };
  await saver.put({ configurable: { thread_id: "plain-values", checkpoint_ns: "" } }, broken, {
    source: "update",
    step: 1,
    parents: {},
  });
  // A corrupted copy: valid header, garbage in the pages that hold the tables' rows.
  const corrupted = join(dir, "corrupted.sqlite");
  saver.db.pragma("wal_checkpoint(TRUNCATE)");
  copyFileSync(path, corrupted);
  const fd = openSync(corrupted, "r+");
  const size = statSync(corrupted).size;
  for (let offset = 4096; offset < size; offset += 4096) writeSync(fd, Buffer.alloc(512, 0xa5), 0, 512, offset + 100);
  closeSync(fd);
  writeFileSync(join(dir, "text.sqlite"), "this is not a database");
  const other = new Database(join(dir, "other.sqlite"));
  other.exec("CREATE TABLE notes (id INTEGER)");
  other.close();
});
afterAll(() => {
  saver.db.close();
  rmSync(dir, { recursive: true, force: true });
});

function rows(): string {
  const checkpoints = saver.db.prepare("SELECT COUNT(*) AS n FROM checkpoints").get() as { n: number };
  const writes = saver.db.prepare("SELECT COUNT(*) AS n FROM writes").get() as { n: number };
  return `${checkpoints.n}/${writes.n}`;
}

const good: CompactingSupervisorOptions = { trigger: { tokens: 2_000 } };
const supervisorWith = (options: Record<string, unknown>) => () =>
  new CompactingSupervisor(agent, { ...good, ...options } as CompactingSupervisorOptions);
const managerWith = (options: Record<string, unknown>) => () =>
  new HistoryManager({ checkpointer: saver, summarizer: new ExtractiveSummarizer(), ...options });
const manager = () => new HistoryManager({ checkpointer: saver, summarizer: new ExtractiveSummarizer() });
const plainGraph = () =>
  new StateGraph(MessagesAnnotation)
    .addNode("agent", async () => ({}))
    .addEdge(START, "agent")
    .addEdge("agent", END)
    .compile();
const noMessagesGraph = () =>
  new StateGraph(Annotation.Root({ count: Annotation<number>() }))
    .addNode("agent", async () => ({}))
    .addEdge(START, "agent")
    .addEdge("agent", END)
    .compile({ checkpointer: saver });

/** [case, call, expected code, text the message must contain (the offending value)] */
const API_CASES: Array<[string, () => unknown, string, string]> = [
  [
    "a graph without a checkpointer",
    () => new CompactingSupervisor(plainGraph(), good),
    "MISSING_CHECKPOINTER",
    "undefined",
  ],
  [
    "a graph without a messages channel",
    () => new CompactingSupervisor(noMessagesGraph(), good),
    "INVALID_ARGUMENT",
    "count",
  ],
  ["not a graph at all", () => new CompactingSupervisor({ invoke: 1 } as never, good), "INVALID_ARGUMENT", "an object"],
  ["options missing", () => new CompactingSupervisor(agent, undefined as never), "INVALID_ARGUMENT", "options"],
  ["trigger tokens as a string", supervisorWith({ trigger: { tokens: "8000" } }), "INVALID_ARGUMENT", '"8000"'],
  ["trigger tokens negative", supervisorWith({ trigger: { tokens: -5 } }), "INVALID_ARGUMENT", "-5"],
  ["trigger tokens NaN", supervisorWith({ trigger: { tokens: Number.NaN } }), "INVALID_ARGUMENT", "NaN"],
  ["a trigger too small once resolved", supervisorWith({ trigger: { tokens: 50 } }), "INVALID_ARGUMENT", "50"],
  ["a removed spelling (tokenLimit)", supervisorWith({ tokenLimit: 8000 }), "INVALID_ARGUMENT", "tokenLimit"],
  ["compactionRatio above 1", supervisorWith({ compactionRatio: 1.5 }), "INVALID_ARGUMENT", "1.5"],
  ["compactionRatio 0", supervisorWith({ compactionRatio: 0 }), "INVALID_ARGUMENT", "got 0"],
  [
    "keep beside compactionRatio",
    supervisorWith({ compactionRatio: 0.5, keep: { messages: 4 } }),
    "INVALID_ARGUMENT",
    "keep",
  ],
  ["background not a boolean", supervisorWith({ background: "yes" }), "INVALID_ARGUMENT", '"yes"'],
  ["summarizer without summarize()", supervisorWith({ summarizer: { name: "x" } }), "INVALID_ARGUMENT", "summarizer"],
  [
    "fallbackSummarizer unknown name",
    supervisorWith({ fallbackSummarizer: "abstractive" }),
    "INVALID_ARGUMENT",
    '"abstractive"',
  ],
  ["onCompaction not a function", supervisorWith({ onCompaction: "log" }), "INVALID_ARGUMENT", '"log"'],
  ["keepCheckpoints 0", supervisorWith({ keepCheckpoints: 0 }), "INVALID_ARGUMENT", "got 0"],
  [
    "archive without a store",
    supervisorWith({ archive: new ToolOutputArchive({ thresholdTokens: 100 }) }),
    "INVALID_ARGUMENT",
    "archive.store",
  ],
  [
    "archive as options, not an archive",
    supervisorWith({ archive: { thresholdTokens: 100 } }),
    "INVALID_ARGUMENT",
    "new ToolOutputArchive",
  ],
  ["model as an empty string", supervisorWith({ model: "" }), "INVALID_ARGUMENT", '""'],
  ["model as a number", supervisorWith({ model: 42 }), "INVALID_ARGUMENT", "42"],
  [
    "an unknown model with a fractional limit",
    supervisorWith({ model: "my-llm-9000", trigger: { fraction: 0.5 } }),
    "INVALID_ARGUMENT",
    '"my-llm-9000"',
  ],
  ["a provider no one knows", supervisorWith({ model: "nosuch:model" }), "INVALID_ARGUMENT", '"nosuch:model"'],
  [
    "invoke without a config",
    () => new CompactingSupervisor(agent, good).invoke({ messages: [new HumanMessage("hi")] }),
    "MISSING_THREAD_ID",
    "invoke",
  ],
  [
    "invoke with an empty thread_id",
    () =>
      new CompactingSupervisor(agent, good).invoke(
        { messages: [new HumanMessage("hi")] },
        { configurable: { thread_id: "" } },
      ),
    "MISSING_THREAD_ID",
    '""',
  ],
  [
    "stream without a thread_id",
    () => new CompactingSupervisor(agent, good).stream({ messages: [new HumanMessage("hi")] }, { configurable: {} }),
    "MISSING_THREAD_ID",
    "stream",
  ],
  ["HistoryManager without a checkpointer", () => new HistoryManager({} as never), "MISSING_CHECKPOINTER", "none"],
  ["keep tokens negative", managerWith({ keep: { tokens: -1 } }), "INVALID_ARGUMENT", "-1"],
  ["a keep of two sizes", managerWith({ keep: { tokens: 100, messages: 2 } }), "INVALID_ARGUMENT", "keep"],
  ["summaryLog unknown", managerWith({ summaryLog: "journal" }), "INVALID_ARGUMENT", '"journal"'],
  ["recall.language not a configuration", managerWith({ recall: { language: "a b" } }), "INVALID_ARGUMENT", '"a b"'],
  [
    "a thread id from another store",
    () => manager().compactThread({ configurable: { thread_id: "thread-from-elsewhere" } }),
    "THREAD_NOT_FOUND",
    '"thread-from-elsewhere"',
  ],
  [
    "non-message values in messages",
    () => manager().compactThread({ configurable: { thread_id: "plain-values" } }),
    "INVALID_HISTORY",
    "plain-values",
  ],
  [
    "a replacement with an orphan tool result",
    () => manager().replaceThreadHistory(config, [new ToolMessage({ tool_call_id: "call_x", content: "42" })]),
    "INVALID_HISTORY",
    "call_x",
  ],
  [
    "a replacement with a string in it",
    () => manager().replaceThreadHistory(config, ["hello" as never]),
    "INVALID_HISTORY",
    "index 0",
  ],
  [
    "recovery from an unknown checkpoint",
    () => manager().recoverFailedTurn(config, { baseCheckpointId: "1f000000-dead-6000-8000-000000000000" }),
    "CHECKPOINT_NOT_FOUND",
    "1f000000-dead-6000-8000-000000000000",
  ],
  ["planCompaction of a non-array", () => planCompaction("messages" as never), "INVALID_ARGUMENT", '"messages"'],
  ["a negative keepTokens in a plan", () => planCompaction([], { keepTokens: -3 }), "INVALID_ARGUMENT", "-3"],
  ["LlmSummarizer without a model", () => new LlmSummarizer({ model: undefined }), "INVALID_ARGUMENT", "model"],
  ["a missing SQLite file", () => openSqliteStore(join(dir, "missing.sqlite")), "STORE_UNAVAILABLE", "missing.sqlite"],
  ["a file that is not SQLite", () => openSqliteStore(join(dir, "text.sqlite")), "INVALID_ARGUMENT", "text.sqlite"],
  [
    "a SQLite file that is not a checkpoint store",
    () => openSqliteStore(join(dir, "other.sqlite")),
    "INVALID_ARGUMENT",
    "other.sqlite",
  ],
  [
    "an unreachable Postgres URL (password redacted)",
    () => openPostgresStore("postgres://app:hunter2@127.0.0.1:1/threads", { connectTimeoutMs: 2_000 }),
    "STORE_UNAVAILABLE",
    "postgres://app:***@127.0.0.1:1/threads",
  ],
  [
    "a Postgres URL that is not a URL",
    () => openPostgresStore("postgres://", { connectTimeoutMs: 2_000 }),
    "STORE_UNAVAILABLE",
    "postgres://",
  ],
];

/** [case, argv, exit code, text stderr must contain] — the script, run in process (its exit code is returned). */
const SCRIPT_CASES: Array<[string, () => string[], number, string]> = [
  ["an unknown command", () => ["shrink", THREAD, "--db", path], 2, '"shrink"'],
  ["an out-of-range --ratio", () => ["compact", THREAD, "--db", path, "--ratio", "1.5"], 2, "1.5"],
  ["a non-numeric --ratio", () => ["compact", THREAD, "--db", path, "--ratio", "half"], 2, '"half"'],
  [
    "a thread id from another store",
    () => ["compact", "thread-from-elsewhere", "--db", path],
    5,
    '"thread-from-elsewhere"',
  ],
  [
    "a thread id that tries SQL injection",
    () => ["inspect", "x' OR '1'='1'; DROP TABLE checkpoints; --", "--db", path],
    5,
    "DROP TABLE",
  ],
  [
    "a corrupted SQLite file",
    () => ["inspect", THREAD, "--db", join(dir, "corrupted.sqlite")],
    4,
    'thread "bad-input": a stored checkpoint could not be read',
  ],
  [
    "a wrong Postgres URL",
    () => ["list", "--postgres", "postgres://app:hunter2@127.0.0.1:1/threads"],
    3,
    "127.0.0.1:1",
  ],
  [
    "both --db and --postgres",
    () => ["list", "--db", path, "--postgres", "postgres://localhost/x"],
    2,
    "one store, not both",
  ],
  ["no store at all", () => ["list"], 2, "no store given"],
  ["a search with no word in it", () => ["search", THREAD, "???", "--db", path], 2, '"???"'],
  [
    "a search with only query syntax",
    () => ["search", THREAD, "(", "*", ")", "^", "--db", path],
    2,
    "at least one word",
  ],
  ["a search limit of 0", () => ["search", THREAD, "invoice", "--hits", "0", "--db", path], 2, 'got "0"'],
  // A negative value names the flag's range (parseArgs alone said "argument is ambiguous").
  ["a negative --limit", () => ["list", "--db", path, "--limit", "-3"], 2, '"-3"'],
  [
    "a negative --idle",
    () => ["watch", "--postgres", "postgres://127.0.0.1:1/none", "--idle", "-5"],
    2,
    "--idle must be",
  ],
  [
    "watch on a SQLite file",
    () => ["watch", "--db", path, "--once"],
    2,
    "watch runs compaction jobs on Postgres (pg-boss)",
  ],
  ["a negative --busy-timeout", () => ["list", "--db", path, "--busy-timeout", "-1"], 2, '"-1"'],
  ["a negative --keep", () => ["prune", THREAD, "--db", path, "--keep", "-2"], 2, '"-2"'],
  [
    "a search limit that is not a number",
    () => ["search", THREAD, "invoice", "--hits", "all", "--db", path],
    2,
    '--hits must be an integer from 1 to 100; got "all"',
  ],
];

describe("bad input", () => {
  it.each(API_CASES)("API: %s → typed error, nothing written", async (_, call, code, text) => {
    const before = rows();
    let caught: unknown;
    try {
      await call();
    } catch (error) {
      caught = error;
    }
    expect(CompactionError.isInstance(caught), `expected a CompactionError, got ${String(caught)}`).toBe(true);
    expect((caught as CompactionError).code).toBe(code);
    expect((caught as CompactionError).message).toContain(text);
    expect(rows()).toBe(before);
  });

  it.each(SCRIPT_CASES)(
    "script: %s → exit code and the value on stderr, nothing written",
    async (_, argv, exitCode, text) => {
      const before = rows();
      const stderr: string[] = [];
      const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => (stderr.push(String(chunk)), true));
      const stdout = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
      let code: number;
      try {
        code = await main(argv(), {});
      } finally {
        spy.mockRestore();
        stdout.mockRestore();
      }
      expect(code, stderr.join("")).toBe(exitCode);
      expect(stderr.join("")).toContain(text);
      expect(stderr.join("")).not.toContain("hunter2");
      expect(rows()).toBe(before);
    },
  );

  it("a message whose content is an object: the wrapper reports INVALID_HISTORY as the HistoryManager throws it, and writes no compaction", async () => {
    const thread = { configurable: { thread_id: "object-content" } };
    const odd = new HumanMessage({ id: "odd-1", content: { form: "invoice", total: 120 } as never });
    await agent.invoke({ messages: [new HumanMessage({ id: "first", content: "hello ".repeat(400) }), odd] }, thread);
    const errors: unknown[] = [];
    const wrapper = new CompactingSupervisor(agent, {
      trigger: { tokens: 300 },
      background: false,
      onCompactionError: (error) => void errors.push(error),
    });
    const before = (await agent.getState(thread)).values.messages.length;
    await wrapper.invoke({ messages: [new HumanMessage({ id: "next", content: "and now?" })] }, thread);
    await wrapper.close();
    expect(errors.length).toBeGreaterThan(0);
    const reported = errors[0] as CompactionError;
    expect(CompactionError.isInstance(reported)).toBe(true);
    expect(reported.code).toBe("INVALID_HISTORY");
    expect(reported.message).toContain('messages[1] is a HumanMessage (id "odd-1") whose content is an object');
    // Nothing compacted: the head is the old one plus the turn.
    expect((await agent.getState(thread)).values.messages.length).toBe(before + 2);
    const thrown = await manager()
      .compactThread(thread)
      .catch((error: unknown) => error);
    expect((thrown as CompactionError).code).toBe("INVALID_HISTORY");
    expect((thrown as CompactionError).message).toBe(reported.message);
  });

  it("counts the table", () => {
    recordFigures("bad-input", { apiCases: API_CASES.length, scriptCases: SCRIPT_CASES.length });
    expect(API_CASES.length + SCRIPT_CASES.length).toBeGreaterThanOrEqual(30);
  });
});
