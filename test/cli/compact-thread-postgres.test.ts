import { AIMessage } from "@langchain/core/messages";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startChatCompletionsServer, type ChatCompletionsServer } from "../support/fakes/chat-completions-server.js";
import { runScript, runTs } from "../support/run-script.js";

const url = inject("postgresUrl");
const schema = `cli_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
let saver: PostgresSaver;
let pool: pg.Pool;
let server: ChatCompletionsServer;

async function rows(): Promise<number> {
  const result = await pool.query(`SELECT COUNT(*) AS n FROM "${schema}".checkpoints`);
  return Number(result.rows[0].n);
}

beforeAll(async () => {
  saver = PostgresSaver.fromConnString(url, { schema });
  await saver.setup();
  pool = new pg.Pool({ connectionString: url });
  server = await startChatCompletionsServer(() => ({ status: 500, error: { message: "down", type: "server_error" } }));
  for (const thread of ["pg-thread", "pg-busy"]) {
    const seeded = await runTs("test/support/append-turns.ts", [url, thread, "8", `${thread}-seed`, schema]);
    expect(seeded.code, seeded.stderr).toBe(0);
  }
  const head = (await saver.getTuple({ configurable: { thread_id: "pg-busy", checkpoint_ns: "" } }))!;
  await saver.putWrites(
    head.config,
    [["messages", [new AIMessage({ id: "in-flight", content: "half" })]]],
    "task-in-flight",
  );
});

afterAll(async () => {
  await saver.end();
  await pool.end();
  await server.close();
});

const store = () => ["--postgres", url, "--schema", schema];

describe("the compaction script on Postgres", () => {
  it("inspects, compacts, shows history and restores", async () => {
    const inspected = JSON.parse(
      (await runScript(["inspect", "pg-thread", ...store(), "--json", "--limit", "900"])).stdout,
    );
    expect(inspected.compactable).toBe(true);
    const compacted = await runScript(["compact", "pg-thread", ...store(), "--json", "--limit", "900"]);
    expect(compacted.code, compacted.stderr).toBe(0);
    const report = JSON.parse(compacted.stdout).report;
    expect(report.status).toBe("compacted");
    const history = JSON.parse((await runScript(["history", "pg-thread", ...store(), "--json"])).stdout);
    expect(history.checkpoints.at(-1).checkpointId).toBe(report.newCheckpointId);
    const restored = await runScript([
      "restore",
      "pg-thread",
      ...store(),
      "--checkpoint",
      report.previousCheckpointId,
      "--json",
    ]);
    expect(restored.code, restored.stderr).toBe(0);
    const fresh = PostgresSaver.fromConnString(url, { schema });
    const head = await fresh.getTuple({ configurable: { thread_id: "pg-thread", checkpoint_ns: "" } });
    const old = await fresh.getTuple({
      configurable: { thread_id: "pg-thread", checkpoint_ns: "", checkpoint_id: report.previousCheckpointId },
    });
    const ids = (tuple: typeof head) =>
      (tuple!.checkpoint.channel_values.messages as Array<{ id?: string }>).map((message) => message.id);
    expect(ids(head)).toEqual(ids(old));
    await fresh.end();
  });

  const cases: Array<[string, () => string[], number, RegExp, Record<string, string>?]> = [
    ["an unknown thread", () => ["compact", "nope", ...store()], 5, /not in this store/],
    ["a busy thread", () => ["compact", "pg-busy", ...store()], 6, /pending write/],
    ["an out-of-range --ratio", () => ["compact", "pg-thread", ...store(), "--ratio", "0"], 2, /--ratio must be/],
    [
      "a summarizer error",
      () => ["compact", "pg-thread", ...store(), "--summarizer", "openai", "--limit", "900"],
      7,
      /summar/i,
      { OPENAI_API_KEY: "sk-test" },
    ],
    [
      "a checkpoint of another thread",
      () => ["restore", "pg-thread", ...store(), "--checkpoint", "not-a-checkpoint"],
      8,
      /has no checkpoint .*another thread.s, or pruned/,
    ],
    [
      "a schema that is not a checkpoint store",
      () => ["list", "--postgres", url, "--schema", "no_such_schema"],
      4,
      /not a LangGraph checkpoint store/,
    ],
  ];
  it.each(cases)("refuses %s without adding a checkpoint row", async (_, args, code, message, env) => {
    const before = await rows();
    const result = await runScript(args(), { ...env, OPENAI_BASE_URL: server.url });
    expect(result.code, result.stderr).toBe(code);
    expect(result.stderr).toMatch(message);
    expect(await rows()).toBe(before);
  });
});
