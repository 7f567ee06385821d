/**
 * A store that refuses the write (a read-only SQLite file) or the login (a Postgres role that does not exist)
 * surfaces as a CompactionError with a stable code, the driver's error as its cause — never as a raw SqliteError or
 * pg DatabaseError — and nothing is written.
 */
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { CompactionError } from "../../src/errors.js";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { createTestAgent, seedThread } from "../support/agents.js";

let dir: string;
beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), "compaction-store-errors-"))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function rejection(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

describe("store errors", () => {
  it("a read-only SQLite store: STORE_READ_ONLY, nothing written", async () => {
    const path = join(dir, "read-only.sqlite");
    const writer = SqliteSaver.fromConnString(path);
    await seedThread(createTestAgent(writer).agent, "t", 8);
    writer.db.close();

    const db = new Database(path, { readonly: true });
    const rows = () => (db.prepare("SELECT COUNT(*) AS n FROM checkpoints").get() as { n: number }).n;
    const before = rows();
    const manager = new HistoryManager({ checkpointer: new SqliteSaver(db), compactionRatio: 0.5 });
    const error = await rejection(manager.compactThread({ configurable: { thread_id: "t" } }));
    expect(CompactionError.isInstance(error) && error.code).toBe("STORE_READ_ONLY");
    expect(String((error as CompactionError).cause)).toMatch(/readonly/i);
    expect(rows()).toBe(before);
    db.close();
  });

  it("a Postgres login refused: STORE_UNAVAILABLE with the server's error as cause", async () => {
    const url = new URL(inject("postgresUrl"));
    url.username = "no_such_role";
    const saver = PostgresSaver.fromConnString(url.toString());
    const manager = new HistoryManager({ checkpointer: saver });
    const error = await rejection(manager.compactThread({ configurable: { thread_id: "t" } }));
    expect(CompactionError.isInstance(error) && error.code).toBe("STORE_UNAVAILABLE");
    expect(String((error as CompactionError).cause)).toMatch(/no_such_role/);
    await saver.end();
  });
});
