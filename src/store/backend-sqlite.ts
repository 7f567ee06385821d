/** The backend of a SqliteSaver: SQL on its connection, the recall index in its file. */
import type { Backend } from "./backend.js";
import { LIBRARY_WRITER } from "./replacement-checkpoint.js";
import { SqliteRecall } from "./recall-index/sqlite-index.js";
import { SqliteWriter, type SqliteSaverLike } from "./swap-sqlite.js";

export function sqliteBackend(saver: SqliteSaverLike): Backend {
  const db = saver.db;
  return {
    name: "sqlite",
    writer: new SqliteWriter(saver),
    recall: new SqliteRecall(db),
    prunable: true,
    // The prune's code loads at the first prune: a store that never prunes never loads it.
    prune: async (threadId, plan) => (await import("./prune-sqlite.js")).pruneSqlite(db, threadId, plan),
    pruneTables: async () => (await import("./prune-tables-sqlite.js")).sqlitePruneTables(db),
    file: async (vacuum) => {
      if (vacuum) db.exec("VACUUM");
      const size = db
        .prepare(
          `SELECT page_count * page_size AS bytes, freelist_count * page_size AS free FROM pragma_page_count(), pragma_page_size(), pragma_freelist_count()`,
        )
        .get() as { bytes: number; free: number };
      return { bytes: Number(size.bytes), freeBytes: Number(size.free) };
    },
    namespacesBefore: async (threadId, before) => {
      const rows = db
        .prepare(
          `SELECT checkpoint_ns FROM checkpoints WHERE thread_id = ? AND checkpoint_ns <> '' GROUP BY checkpoint_ns HAVING max(checkpoint_id) < ?`,
        )
        .all(threadId, before) as Array<{ checkpoint_ns: string }>;
      return rows.map((row) => String(row.checkpoint_ns));
    },
    changedSince: async (cursor) => {
      const exists = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'`).get();
      if (!exists) return [];
      db.exec(
        `CREATE INDEX IF NOT EXISTS compaction_root_checkpoint_ids ON checkpoints (checkpoint_id) WHERE checkpoint_ns = ''`,
      );
      const rows = db
        .prepare(
          `SELECT thread_id AS threadId, MAX(checkpoint_id) AS head FROM checkpoints WHERE checkpoint_ns = '' AND checkpoint_id > ? GROUP BY thread_id`,
        )
        .all(cursor) as Array<{ threadId: string; head: string }>;
      return rows.map((row) => ({ threadId: String(row.threadId), headCheckpointId: String(row.head) }));
    },
    strandedWrites: async (cursor) => {
      const exists = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'`).get();
      if (!exists) return [];
      const rows = db
        .prepare(
          `SELECT c.thread_id AS threadId, c.checkpoint_id AS id FROM checkpoints c
           WHERE c.checkpoint_ns = '' AND c.checkpoint_id > ?
             AND (json_extract(CAST(c.metadata AS TEXT), '$.writtenBy') = ?
               OR json_type(CAST(c.metadata AS TEXT), '$.compaction') = 'object'
               OR json_type(CAST(c.metadata AS TEXT), '$.restore') = 'object')
             AND NOT EXISTS (SELECT 1 FROM checkpoints d WHERE d.thread_id = c.thread_id AND d.checkpoint_ns = '' AND d.parent_checkpoint_id = c.checkpoint_id)
             AND c.checkpoint_id < (SELECT max(h.checkpoint_id) FROM checkpoints h WHERE h.thread_id = c.thread_id AND h.checkpoint_ns = '')`,
        )
        .all(cursor, LIBRARY_WRITER) as Array<{ threadId: string; id: string }>;
      return rows.map((row) => ({ threadId: String(row.threadId), headCheckpointId: String(row.id) }));
    },
    headId: async (threadId) => {
      const exists = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'`).get();
      if (!exists) return undefined;
      const row = db
        .prepare(
          `SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1`,
        )
        .get(threadId) as { checkpoint_id: string } | undefined;
      return row?.checkpoint_id;
    },
    headBytes: async (threadId) => {
      if (!db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'`).get())
        return undefined;
      const row = db
        .prepare(
          `SELECT length(checkpoint) AS bytes, type, json_type(CAST(checkpoint AS TEXT), '$.channel_values.messages') AS kind FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1`,
        )
        .get(threadId) as { bytes: number; type: string | null; kind: string | null } | undefined;
      return row?.type === "json" && row.kind === "array" ? row.bytes : undefined;
    },
    storage: async (threadId) => {
      const exists = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'`).get();
      if (!exists) return undefined;
      const checkpoints = db
        .prepare(
          `SELECT count(*) AS n, sum(checkpoint_ns <> '') AS subgraph, coalesce(sum(length(checkpoint) + length(metadata)), 0) AS bytes FROM checkpoints WHERE thread_id = ?`,
        )
        .get(threadId) as { n: number; subgraph: number | null; bytes: number };
      const writes = db
        .prepare(`SELECT coalesce(sum(length(value)), 0) AS bytes FROM writes WHERE thread_id = ?`)
        .get(threadId) as { bytes: number };
      return {
        checkpoints: Number(checkpoints.n),
        subgraphCheckpoints: Number(checkpoints.subgraph ?? 0),
        checkpointBytes: Number(checkpoints.bytes),
        writeBytes: Number(writes.bytes),
      };
    },
    listThreads: async () => {
      const exists = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'`).get();
      if (!exists) return [];
      const rows = db
        .prepare(
          `SELECT c.thread_id AS threadId, c.checkpoint_id AS headCheckpointId, length(c.checkpoint) AS headBytes, n.checkpoints
           FROM (SELECT thread_id, MAX(checkpoint_id) AS head, COUNT(*) AS checkpoints FROM checkpoints WHERE checkpoint_ns = '' GROUP BY thread_id) n
           JOIN checkpoints c ON c.thread_id = n.thread_id AND c.checkpoint_ns = '' AND c.checkpoint_id = n.head
           ORDER BY c.thread_id`,
        )
        .all() as Array<Record<string, unknown>>;
      return rows.map((row) => ({
        threadId: String(row.threadId),
        checkpoints: Number(row.checkpoints),
        headCheckpointId: String(row.headCheckpointId),
        headBytes: Number(row.headBytes),
      }));
    },
  };
}
