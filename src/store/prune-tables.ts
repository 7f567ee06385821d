/**
 * What a prune's plan reads of a store's tables (prune-by-ids.ts), per backend: the root checkpoints' ids, waiting
 * interrupts, and whether one checkpoint's messages list is the start of
 * another's, compared as stored (SQLite's JSON text, Postgres's JSON blobs) without reviving a message.
 *
 * A list is the start of another when the other's text begins with the list's text minus its closing bracket and
 * goes on with a comma or a bracket: a JSON value is self-delimiting, so the elements are the same, in order, to the
 * byte. A checkpoint whose `messages` channel was never written holds nothing (the start of any list).
 *
 * One difference is not a difference: a field that holds `undefined`. LangChain's serializer writes it as
 * `{"lc":2,"type":"undefined"}` when a message is first stored (a createReactAgent reply's `name`), and a message
 * read back and stored again by the next turn leaves it out: the same message either way. Such fields are taken out
 * of both texts before they are compared (`UNDEFINED_FIELD`). A JSON string escapes its quotes, so the pattern only
 * ever matches the structure, never a message's text.
 */
import { INTERRUPT } from "@langchain/langgraph-checkpoint";
import { turnOver } from "../slices.js";
import type { PruneTables } from "./prune-by-ids.js";
import type { PostgresPool } from "./recall-index/postgres-index.js";
import { quoteIdentifier } from "./sql.js";
import type { SqliteDatabase as Database } from "./sqlite-database.js";

export function sqlitePruneTables(db: Database): Omit<PruneTables, "namespacesBefore"> {
  const listOf = `SELECT type, json_type(CAST(checkpoint AS TEXT), '$.channel_versions.messages') AS written,
      json_type(CAST(checkpoint AS TEXT), '$.channel_values.messages') AS kind,
      json_extract(CAST(checkpoint AS TEXT), '$.channel_values.messages') AS list
    FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?`;
  type List = { type: string | null; written: string | null; kind: string | null; list: string | null };
  /** The last kept checkpoint's list, as compared. */
  let kept: { key: string; list: string | undefined } | undefined;
  return {
    async rootCheckpoints(threadId) {
      // A saver that never wrote has no tables yet: the prune of record says the thread is not found.
      if (!db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'writes'`).get()) return undefined;
      const rows = db
        .prepare(
          `SELECT checkpoint_id AS id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id`,
        )
        .all(threadId) as Array<{ id: string }>;
      return rows.map((row) => row.id);
    },
    async interruptWaiting(threadId, ids) {
      const sql = `SELECT 1 FROM writes WHERE thread_id = ? AND checkpoint_ns = '' AND channel = ? AND checkpoint_id IN (SELECT value FROM json_each(?)) LIMIT 1`;
      return db.prepare(sql).get(threadId, INTERRUPT, JSON.stringify(ids)) !== undefined;
    },
    async isPrefixOf(threadId, checkpointId, keptId) {
      // Each read parses a checkpoint's JSON (about 40 ms at 10,000 messages): one per stretch of the event loop
      // (slices.ts), and the kept checkpoint's list read once for the plan's every checkpoint (an id's checkpoint
      // never changes).
      const statement = db.prepare(listOf);
      const start = statement.get(threadId, checkpointId) as List | undefined;
      if (start?.type !== "json") return undefined;
      if (start.written === null && start.kind === null) return true;
      if (start.kind !== "array") return undefined;
      const key = `${threadId}\u0000${keptId}`;
      if (kept?.key !== key) {
        await turnOver();
        const whole = statement.get(threadId, keptId) as List | undefined;
        kept = {
          key,
          list: whole?.type === "json" && whole.kind === "array" ? withoutUndefinedFields(whole.list!) : undefined,
        };
      }
      return kept.list === undefined ? undefined : startsWith(kept.list, withoutUndefinedFields(start.list!));
    },
  };
}

export function postgresPruneTables(pool: PostgresPool, schema: string): Omit<PruneTables, "namespacesBefore"> {
  const s = quoteIdentifier(schema);
  return {
    async rootCheckpoints(threadId) {
      const result = await pool.query(
        `SELECT checkpoint_id FROM ${s}.checkpoints WHERE thread_id = $1 AND checkpoint_ns = '' ORDER BY checkpoint_id`,
        [threadId],
      );
      return result.rows.map((row) => String(row.checkpoint_id));
    },
    async interruptWaiting(threadId, ids) {
      const sql = `SELECT 1 FROM ${s}.checkpoint_writes WHERE thread_id = $1 AND checkpoint_ns = '' AND channel = $2 AND checkpoint_id = ANY($3::text[]) LIMIT 1`;
      return (await pool.query(sql, [threadId, INTERRUPT, ids])).rows.length > 0;
    },
    async isPrefixOf(threadId, checkpointId, keptId) {
      // The blob of each checkpoint's messages version, as text without its undefined fields; the comparison runs
      // in the server.
      const result = await pool.query(
        `WITH lists AS (
           SELECT c.checkpoint_id, c.checkpoint -> 'channel_versions' ->> 'messages' AS version, b.type,
             CASE WHEN b.type = 'json' THEN regexp_replace(convert_from(b.blob, 'UTF8'), $4, '', 'g') END AS list
           FROM ${s}.checkpoints c LEFT JOIN ${s}.checkpoint_blobs b ON b.thread_id = c.thread_id AND b.checkpoint_ns = c.checkpoint_ns
             AND b.channel = 'messages' AND b.version = c.checkpoint -> 'channel_versions' ->> 'messages'
           WHERE c.thread_id = $1 AND c.checkpoint_ns = '' AND c.checkpoint_id IN ($2, $3))
         SELECT a.version IS NULL AS unwritten,
           a.type = 'json' AND k.type = 'json' AND left(a.list, 1) = '[' AND left(k.list, 1) = '[' AS readable,
           a.version = k.version OR a.list = '[]' OR (length(k.list) >= length(a.list)
             AND left(k.list, length(a.list) - 1) = left(a.list, length(a.list) - 1)
             AND substr(k.list, length(a.list), 1) IN (',', ']')) AS prefix
         FROM lists a, lists k WHERE a.checkpoint_id = $2 AND k.checkpoint_id = $3`,
        [threadId, checkpointId, keptId, UNDEFINED_FIELD.source],
      );
      const row = result.rows[0];
      if (!row) return undefined;
      if (row.unwritten === true) return true;
      return row.readable === true ? row.prefix === true : undefined;
    },
  };
}

/** LangChain's `undefined` as its serializer writes it (see the file's comment). */
const UNDEFINED = '{"lc":2,"type":"undefined"}';

/**
 * A field of a JSON object whose value is `UNDEFINED`: with the comma before it, or the one after it when it comes
 * first. Postgres applies it in the server; `withoutUndefinedFields` is the same rule without a regular expression,
 * which would test every quote of a long list on the event loop.
 */
export const UNDEFINED_FIELD = /,"[^"\\]*":\{"lc":2,"type":"undefined"\}|"[^"\\]*":\{"lc":2,"type":"undefined"\},?/;

export function withoutUndefinedFields(json: string): string {
  if (!json.includes(UNDEFINED)) return json;
  const pieces = json.split(UNDEFINED);
  let text = pieces[0]!;
  for (const piece of pieces.slice(1)) {
    // `text` ends with the field's key, `"key":`, after a comma or the object's opening brace.
    const keyStart = text.lastIndexOf('"', text.length - 3);
    const key = text.slice(keyStart + 1, -2);
    const before = text[keyStart - 1];
    if (!text.endsWith('":') || key.includes("\\") || (before !== "," && before !== "{")) {
      text += UNDEFINED + piece;
    } else if (before === ",") text = text.slice(0, keyStart - 1) + piece;
    else text = text.slice(0, keyStart) + (piece.startsWith(",") ? piece.slice(1) : piece);
  }
  return text;
}

/** Whether the JSON list `whole` begins with the elements of the JSON list `start`, as written. */
function startsWith(whole: string, start: string): boolean {
  if (start === "[]") return whole.startsWith("[");
  const open = start.slice(0, -1);
  if (!whole.startsWith(open)) return false;
  const next = whole[open.length];
  return next === "," || next === "]";
}
