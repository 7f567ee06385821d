/**
 * langgraph-compaction/postgres: the recall index's tables made ahead of time, so an application role that may not
 * run DDL can compact (its first compaction would otherwise try to create them and fail with STORE_READ_ONLY).
 */
import { searchHistory } from "../../src/recall/search.js";
import { ConceptEmbeddings } from "../support/fakes/concept-embeddings.js";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import pg from "pg";
import { CompactionError } from "../../src/errors.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { postgresRecallSchemaSql, setupPostgresRecall } from "../../src/postgres.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import { createTestAgent, runTurns } from "../support/agents.js";
import { createStore, type TestStore } from "../support/savers.js";

let store: TestStore;
let pool: pg.Pool;
const role = `app_${Date.now().toString(36)}`;

async function recallTables(schema: string): Promise<string[]> {
  const found = await pool.query(
    `SELECT tablename FROM pg_tables WHERE schemaname = $1 AND tablename LIKE 'compaction_recall%' ORDER BY tablename`,
    [schema],
  );
  return found.rows.map((row) => String(row.tablename));
}

/** A role that may read and write the schema's tables but create nothing in it. */
async function applicationUrl(schema: string): Promise<string> {
  // Made once per run (42710: it exists), granted each time (a test's setup may have made new tables).
  await pool.query(`CREATE ROLE ${role} LOGIN PASSWORD 'app-secret'`).catch((error: unknown) => {
    if ((error as { code?: unknown }).code !== "42710") throw error;
  });
  await pool.query(`GRANT USAGE ON SCHEMA "${schema}" TO ${role}`);
  await pool.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "${schema}" TO ${role}`);
  const url = new URL(store.location.url!);
  url.username = role;
  url.password = "app-secret";
  return url.toString();
}

beforeAll(async () => {
  store = await createStore("postgres");
  pool = new pg.Pool({ connectionString: store.location.url, max: 2 });
});

afterAll(async () => {
  await pool.query(`DROP OWNED BY ${role}`).catch(() => undefined);
  await pool.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
  await pool.end();
  await store.close();
});

describe("setupPostgresRecall", () => {
  it("creates the recall index's tables once, idempotently; the DDL is available for migrations", async () => {
    const schema = store.location.schema!;
    expect(await recallTables(schema)).toEqual([]);
    await setupPostgresRecall(pool, { schema });
    await setupPostgresRecall(pool, { schema });
    expect(await recallTables(schema)).toEqual([
      "compaction_recall",
      "compaction_recall_terms",
      "compaction_recall_threads",
      "compaction_recall_vectors",
    ]);
    expect(postgresRecallSchemaSql(schema)).toContain(`CREATE TABLE IF NOT EXISTS "${schema}".compaction_recall (`);
    // An index made by an earlier release (without the columns added since) is brought up to date by the same DDL.
    await pool.query(`ALTER TABLE "${schema}".compaction_recall DROP COLUMN versions, DROP COLUMN body_length`);
    await pool.query(postgresRecallSchemaSql(schema));
    const columns = await pool.query(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'compaction_recall' AND column_name IN ('versions', 'body_length') ORDER BY column_name`,
      [schema],
    );
    expect(columns.rows.map((row) => row.column_name)).toEqual(["body_length", "versions"]);
  });

  it("lets a role that may not create tables compact, with its messages indexed", async () => {
    const schema = store.location.schema!;
    // Without this, the role's first compaction fails: 42501 permission denied for the schema (STORE_READ_ONLY).
    await setupPostgresRecall(pool, { schema });
    const { agent } = createTestAgent(store.saver);
    await runTurns(agent, "t-app", 12);
    const saver = PostgresSaver.fromConnString(await applicationUrl(schema), { schema });
    try {
      const report = await new HistoryManager({
        checkpointer: saver,
        summarizer: new ExtractiveSummarizer(),
      }).compactThread({ configurable: { thread_id: "t-app" } });
      expect(report.status, report.reason).toBe("compacted");
      const indexed = await pool.query(
        `SELECT COUNT(*) AS n FROM "${schema}".compaction_recall WHERE thread_id = 't-app'`,
      );
      expect(Number(indexed.rows[0]!.n)).toBeGreaterThan(0);
      // The semantic ranking keeps its vectors in the table setup made, with no DDL of its own.
      const embeddings = new ConceptEmbeddings([["invoice", "bill"]]);
      expect(
        (await searchHistory(saver, { configurable: { thread_id: "t-app" } }, "bill", { semantic: { embeddings } }))
          .length,
      ).toBeGreaterThan(0);
      const vectors = await pool.query(
        `SELECT COUNT(*) AS n FROM "${schema}".compaction_recall_vectors WHERE thread_id = 't-app'`,
      );
      expect(Number(vectors.rows[0]!.n)).toBe(embeddings.embedded.length);
    } finally {
      await saver.end();
    }
  });

  it("tells a role that may not run DDL how to bring an index of an earlier release up to date", async () => {
    const schema = store.location.schema!;
    await setupPostgresRecall(pool, { schema });
    const { agent } = createTestAgent(store.saver);
    await runTurns(agent, "t-upgrade", 12);
    // The index as an earlier release made it: without the newest columns.
    await pool.query(
      `ALTER TABLE "${schema}".compaction_recall DROP COLUMN IF EXISTS body_length, DROP COLUMN IF EXISTS packed`,
    );
    const saver = PostgresSaver.fromConnString(await applicationUrl(schema), { schema });
    const compact = () =>
      new HistoryManager({ checkpointer: saver, summarizer: new ExtractiveSummarizer() }).compactThread({
        configurable: { thread_id: "t-upgrade" },
      });
    try {
      const refused = await compact().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(CompactionError.isInstance(refused) && refused.code).toBe("STORE_READ_ONLY");
      expect((refused as Error).message).toMatch(
        /older than this release's.*run setupPostgresRecall\(pool, \{ schema: /,
      );
      await setupPostgresRecall(pool, { schema });
      expect((await compact()).status).toBe("compacted");
    } finally {
      await saver.end();
    }
  });
});
