/**
 * One contract, many stores: the shared suites run unchanged on MemorySaver, SqliteSaver on a real file and
 * PostgresSaver on a real server (each suite in its own schema).
 */
import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { inject } from "vitest";

export type SaverKind = "memory" | "sqlite" | "postgres";
export const SAVER_KINDS: SaverKind[] = ["memory", "sqlite", "postgres"];

export interface TestStore {
  kind: SaverKind;
  saver: BaseCheckpointSaver;
  /** A second, independent handle on the same data, as a fresh process would open it (memory: the same saver). */
  reopen(): Promise<BaseCheckpointSaver>;
  /** Where the data lives: a SQLite path or a Postgres URL and schema. */
  location: { path?: string; url?: string; schema?: string };
  close(): Promise<void>;
}

export async function createStore(kind: SaverKind): Promise<TestStore> {
  if (kind === "memory") {
    const saver = new MemorySaver();
    return { kind, saver, reopen: async () => saver, location: {}, close: async () => undefined };
  }
  if (kind === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "compaction-sqlite-"));
    const path = join(dir, "checkpoints.sqlite");
    const saver = SqliteSaver.fromConnString(path);
    const opened: SqliteSaver[] = [saver];
    return {
      kind,
      saver,
      location: { path },
      reopen: async () => {
        const again = SqliteSaver.fromConnString(path);
        opened.push(again);
        return again;
      },
      close: async () => {
        for (const handle of opened) handle.db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const url = inject("postgresUrl");
  const schema = `t_${randomUUID().replace(/-/g, "").slice(0, 16)}`;
  const saver = PostgresSaver.fromConnString(url, { schema });
  await saver.setup();
  const opened: PostgresSaver[] = [saver];
  return {
    kind,
    saver,
    location: { url, schema },
    reopen: async () => {
      const again = PostgresSaver.fromConnString(url, { schema });
      opened.push(again);
      return again;
    },
    close: async () => {
      for (const handle of opened) await handle.end();
    },
  };
}
