/**
 * Opening a Postgres checkpoint store from its URL (the script's `--postgres`), refusing — before anything is
 * written — an unreachable server or a database that is not a LangGraph checkpoint store.
 */
import type pg from "pg";
import { CompactionError } from "../errors.js";
import { importOptional, requireAllInstalled, requireOptional } from "../optional-dependency.js";
import type { OpenedStore } from "./opened-store.js";
import { DEFAULT_RECALL_LANGUAGE } from "./recall-index/types.js";
import { quoteIdentifier } from "./sql.js";
import { threadStoreFor } from "./thread-store.js";

function redact(url: string): string {
  return url.replace(/\/\/([^:/@]+):([^@]+)@/, "//$1:***@");
}

export async function openPostgresStore(
  url: string,
  { schema = "public", connectTimeoutMs = 5_000, recallLanguage = DEFAULT_RECALL_LANGUAGE } = {},
): Promise<OpenedStore> {
  requireAllInstalled(["pg", "@langchain/langgraph-checkpoint-postgres"], "a Postgres checkpoint store");
  const { Pool } = requireOptional<typeof pg>("pg", "a Postgres checkpoint store");
  const { PostgresSaver } = await importOptional(
    "@langchain/langgraph-checkpoint-postgres",
    "a Postgres checkpoint store",
    () => import("@langchain/langgraph-checkpoint-postgres"),
  );
  const pool = new Pool({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs, max: 4 });
  pool.on("error", () => undefined);
  const quoted = quoteIdentifier(schema);
  try {
    const found = await pool.query(`SELECT to_regclass($1) AS checkpoints, to_regclass($2) AS blobs`, [
      `${quoted}.checkpoints`,
      `${quoted}.checkpoint_blobs`,
    ]);
    if (!found.rows[0]?.checkpoints || !found.rows[0]?.blobs) {
      await pool.end();
      throw new CompactionError({
        code: "INVALID_ARGUMENT",
        parameter: "--postgres",
        value: redact(url),
        message: `${redact(url)} (schema ${schema}) is not a LangGraph checkpoint store: no checkpoints/checkpoint_blobs tables`,
      });
    }
  } catch (error) {
    if (CompactionError.isInstance(error)) throw error;
    await pool.end().catch(() => undefined);
    throw new CompactionError({
      code: "STORE_UNAVAILABLE",
      value: redact(url),
      message: `cannot reach Postgres at ${redact(url)}: ${(error as Error).message}`,
      cause: error,
    });
  }
  const saver = new PostgresSaver(pool, undefined, { schema });
  return {
    kind: "postgres",
    readOnly: false,
    saver,
    threads: threadStoreFor(saver, { recallLanguage }),
    close: async () => pool.end(),
  };
}
