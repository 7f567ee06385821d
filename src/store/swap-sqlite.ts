/**
 * The SQLite compare-and-swap: `BEGIN IMMEDIATE` on the saver's own connection takes the database's write lock, so
 * no other writer, in this process or another, can commit between the check of the head and the insert. Writes the
 * rows SqliteSaver writes (same serializer, same columns), and the recall index rows in the same transaction.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { headVerdict, type CompareAndSwapWriter, type WriteOutcome, type WriteRequest } from "./compare-and-swap.js";
import { applySqliteRecall, ensureSqliteRecall } from "./recall-index/sqlite-index.js";
import type { SqliteDatabase as Database } from "../sqlite-database.js";

type Serde = { dumpsTyped(value: unknown): Promise<[string, Uint8Array]> | [string, Uint8Array] };

export interface SqliteSaverLike extends BaseCheckpointSaver {
  db: Database;
}

export class SqliteWriter implements CompareAndSwapWriter {
  readonly backend = "sqlite" as const;
  constructor(private readonly saver: SqliteSaverLike) {}

  async write(request: WriteRequest): Promise<WriteOutcome> {
    const { threadId, expectedCheckpointId, proposedVersion, build, recall } = request;
    // setup() is idempotent and creates the tables a fresh file lacks.
    (this.saver as unknown as { setup(): void }).setup();
    const db = this.saver.db;
    const { checkpoint, metadata } = build(proposedVersion);
    const serde = (this.saver as unknown as { serde: Serde }).serde;
    const [[type, serializedCheckpoint], [metadataType, serializedMetadata]] = await Promise.all([
      serde.dumpsTyped(checkpoint),
      serde.dumpsTyped(metadata),
    ]);
    if (type !== metadataType) throw new Error("checkpoint and metadata serialized to different types");
    if (recall && (recall.add.length > 0 || (recall.move ?? []).length > 0)) ensureSqliteRecall(db);
    const run = db.transaction((): WriteOutcome => {
      const current = db
        .prepare(
          `SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1`,
        )
        .get(threadId) as { checkpoint_id: string } | undefined;
      const pending = db
        .prepare(`SELECT COUNT(*) AS n FROM writes WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?`)
        .get(threadId, expectedCheckpointId) as { n: number };
      const refused = headVerdict(request, current?.checkpoint_id ?? null, pending.n);
      if (refused) return refused;
      db.prepare(
        `INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata) VALUES (?, '', ?, ?, ?, ?, ?)`,
      ).run(threadId, checkpoint.id, expectedCheckpointId, type, serializedCheckpoint, serializedMetadata);
      if (recall) applySqliteRecall(db, recall);
      return { status: "written" };
    });
    return run.immediate();
  }
}
