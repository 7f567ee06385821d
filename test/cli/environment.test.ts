/**
 * The script reads every setting of .env.example as the wrapper does (one test per setting; DEMO_* are the demo's).
 */
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { threadStoreFor } from "../../src/store/thread-store.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { startChatCompletionsServer, type ChatCompletionsServer } from "../support/fakes/chat-completions-server.js";
import { runScript, ROOT, runTs } from "../support/run-script.js";

let dir: string;
let seeded: string;
let server: ChatCompletionsServer;
const SUMMARY = "## Facts\n- Stripe fees were asked for orders ord_0 to ord_3.";

/** A fresh copy of the seeded store (each test may write). */
function copy(name: string): string {
  const path = join(dir, `${name}.sqlite`);
  copyFileSync(seeded, path);
  return path;
}

async function checkpoints(path: string, thread = "env-thread"): Promise<number> {
  const saver = SqliteSaver.fromConnString(path);
  const count = (await threadStoreFor(saver).listCheckpoints(thread)).length;
  saver.db.close();
  return count;
}

async function head(path: string) {
  const saver = SqliteSaver.fromConnString(path);
  const messages = (await threadStoreFor(saver).readHead("env-thread"))!.messages;
  return { saver, messages };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "compaction-env-"));
  seeded = join(dir, "seed.sqlite");
  const result = await runTs("test/support/append-turns.ts", [seeded, "env-thread", "4", "env"]);
  expect(result.code, result.stderr).toBe(0);
  server = await startChatCompletionsServer(() => ({ content: SUMMARY }));
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the script honours every setting of .env.example", () => {
  // HISTORY_SEARCH_TOOL: test/engine/search-tool-announce.test.ts (the script and the wrapper read it alike).
  it("lists the same settings this test covers", () => {
    const settings = [...readFileSync(resolve(ROOT, ".env.example"), "utf8").matchAll(/^([A-Z_]+)=/gm)]
      .map((match) => match[1])
      .filter((name) => !name!.startsWith("DEMO_"));
    expect(settings.sort()).toEqual(
      [
        "COMPACTION_RATIO",
        "DATABASE_PATH",
        "DEBUG",
        "HISTORY_SEARCH_TOOL",
        "NO_COLOR",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "OPENAI_MODEL",
        "POSTGRES_URL",
        "SUMMARY_MODEL",
        "TOKEN_LIMIT",
        "TOKEN_MODEL",
      ].sort(),
    );
  });

  it("TOKEN_LIMIT: a thread under it is not compacted, and the script says why", async () => {
    const path = copy("limit-high");
    const before = await checkpoints(path);
    const result = await runScript(["compact", "env-thread", "--db", path], { TOKEN_LIMIT: "100000" });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/nothing written: [\d,]+ tokens, not over the limit of 100,000/);
    expect(await checkpoints(path)).toBe(before);
    const low = await runScript(["compact", "env-thread", "--db", path, "--json"], { TOKEN_LIMIT: "900" });
    expect(JSON.parse(low.stdout).status).toBe("compacted");
    // A fraction of the model's window, as the wrapper reads it.
    const listed = JSON.parse((await runScript(["list", "--db", path, "--json"], { TOKEN_LIMIT: "0.5" })).stdout);
    expect(listed.limit).toBe(64_000);
    // --limit reads a fraction as TOKEN_LIMIT does (--help and docs/script.md say so), for every command taking it.
    const flagged = JSON.parse((await runScript(["list", "--db", path, "--json", "--limit", "0.5"])).stdout);
    expect(flagged.limit).toBe(64_000);
    const inspected = await runScript(["inspect", "env-thread", "--db", path, "--json", "--limit", "0.5"]);
    expect(inspected.code, inspected.stderr).toBe(0);
    const planned = await runScript(["compact", "env-thread", "--db", path, "--dry-run", "--json", "--limit", "0.5"]);
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toMatch(/64,?000/);
    const negative = await runScript(["list", "--db", path, "--limit", "-3"]);
    expect(negative.code).toBe(2);
    expect(negative.stderr).toMatch(/--limit must be a positive number of tokens, or a fraction/);
    const bad = await runScript(["list", "--db", path], { TOKEN_LIMIT: "lots" });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/TOKEN_LIMIT/);
  });

  it("COMPACTION_RATIO: the plan summarizes that share, as HistoryManager plans it", async () => {
    const path = copy("ratio");
    const planOf = async (env: Record<string, string>) =>
      JSON.parse(
        (await runScript(["compact", "env-thread", "--db", path, "--dry-run", "--json", "--limit", "300"], env)).stdout,
      ).plan;
    const byRatio = await planOf({ COMPACTION_RATIO: "0.3" });
    const byTarget = await planOf({});
    const { saver, messages } = await head(path);
    const expected = new HistoryManager({
      checkpointer: saver,
      trigger: { tokens: 300 },
      compactionRatio: 0.3,
      env: {},
    }).planCompaction(messages);
    saver.db.close();
    expect(byRatio.summarize.messages).toBe(expected.summarize.length);
    expect(byRatio.summarize.messages).not.toBe(byTarget.summarize.messages);
  });

  it("TOKEN_MODEL: threads are counted with that model's tokenizer", async () => {
    const path = copy("model");
    const tokens = async (env: Record<string, string>) =>
      JSON.parse((await runScript(["inspect", "env-thread", "--db", path, "--json"], env)).stdout).tokens;
    const { saver, messages } = await head(path);
    saver.db.close();
    expect(await tokens({ TOKEN_MODEL: "gpt-4" })).toBe(new TokenCounter({ model: "gpt-4" }).countMessages(messages));
    expect(await tokens({})).toBe(new TokenCounter({ model: "gpt-4o" }).countMessages(messages));
    expect(new TokenCounter({ model: "gpt-4" }).countMessages(messages)).not.toBe(
      new TokenCounter({ model: "gpt-4o" }).countMessages(messages),
    );
  });

  it("DATABASE_PATH: the store when --db is not given", async () => {
    const path = copy("database-path");
    const listed = await runScript(["list", "--json"], { DATABASE_PATH: path });
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).threads.map((thread: { threadId: string }) => thread.threadId)).toEqual([
      "env-thread",
    ]);
  });

  it("POSTGRES_URL: the store when neither --db nor --postgres is given", async () => {
    const url = inject("postgresUrl");
    const schema = `env_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
    const saver = PostgresSaver.fromConnString(url, { schema });
    await saver.setup();
    const appended = await runTs("test/support/append-turns.ts", [url, "pg-env", "2", "pg", schema]);
    expect(appended.code, appended.stderr).toBe(0);
    const listed = await runScript(["list", "--schema", schema, "--json"], { POSTGRES_URL: url });
    await saver.end();
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).threads.map((thread: { threadId: string }) => thread.threadId)).toEqual([
      "pg-env",
    ]);
  });

  it("OPENAI_API_KEY and OPENAI_BASE_URL: the default summarizer is the wrapper's, the LLM one, on that server", async () => {
    const path = copy("openai");
    const before = server.requests.length;
    const result = await runScript(["compact", "env-thread", "--db", path, "--limit", "900", "--json"], {
      OPENAI_API_KEY: "sk-local-test",
      OPENAI_BASE_URL: server.url,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).report.summarizer).toBe("llm");
    expect(server.requests.length).toBeGreaterThan(before);
    expect(server.requests.at(-1)!.headers.authorization).toBe("Bearer sk-local-test");
  });

  it("SUMMARY_MODEL, else OPENAI_MODEL: the model the LLM summarizer asks for", async () => {
    for (const [env, model] of [
      [{ SUMMARY_MODEL: "summary-model-x", OPENAI_MODEL: "agent-model-y" }, "summary-model-x"],
      [{ SUMMARY_MODEL: "", OPENAI_MODEL: "agent-model-y" }, "agent-model-y"],
    ] as const) {
      const path = copy(`model-${model}`);
      const result = await runScript(["compact", "env-thread", "--db", path, "--limit", "900", "--json"], {
        OPENAI_API_KEY: "sk-local-test",
        OPENAI_BASE_URL: server.url,
        ...env,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(server.requests.at(-1)!.body.model).toBe(model);
    }
  });

  it("NO_COLOR: no colour on a terminal", () => {
    const path = copy("colour");
    const onTerminal = (env: Record<string, string>) =>
      execFileSync(
        "script",
        [
          "-qec",
          `${process.execPath} --import tsx scripts/compact-thread.ts inspect env-thread --db ${path}`,
          "/dev/null",
        ],
        {
          cwd: ROOT,
          env: { ...process.env, OPENAI_API_KEY: "", DATABASE_PATH: "", POSTGRES_URL: "", NO_COLOR: "", ...env },
        },
      ).toString();
    expect(onTerminal({})).toContain("\u001b[");
    expect(onTerminal({ NO_COLOR: "1" })).not.toContain("\u001b[");
  });

  it("DEBUG: an unexpected error prints its stack", async () => {
    const path = copy("debug");
    const saver = SqliteSaver.fromConnString(path);
    // A checkpoint written by a serializer this one does not know: not a store error, a bug to report.
    saver.db.prepare(`UPDATE checkpoints SET type = 'unknown-serializer' WHERE thread_id = 'env-thread'`).run();
    saver.db.close();
    const quiet = await runScript(["inspect", "env-thread", "--db", path]);
    const loud = await runScript(["inspect", "env-thread", "--db", path], { DEBUG: "1" });
    expect(quiet.code).toBe(1);
    expect(loud.code).toBe(1);
    expect(quiet.stderr).not.toMatch(/\n\s+at /);
    expect(loud.stderr).toMatch(/\n\s+at /);
  });
});
