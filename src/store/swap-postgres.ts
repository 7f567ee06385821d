/**
 * The Postgres compare-and-swap: one transaction holding a per-thread advisory lock; the version of the `messages`
 * blob is computed inside it, above every version stored for the channel (forked threads keep blobs of abandoned
 * branches, and `ON CONFLICT DO NOTHING` would silently keep the old blob under a reused version). Writes the rows
 * PostgresSaver writes (through its own serializer), and the recall index rows in the same transaction.
 */
import type {
  BaseCheckpointSaver,
  ChannelVersions,
  Checkpoint,
  CheckpointMetadata,
  CheckpointPendingWrite,
} from "@langchain/langgraph-checkpoint";
import { headVerdict, type CompareAndSwapWriter, type WriteOutcome, type WriteRequest } from "./compare-and-swap.js";
import { applyPostgresRecall } from "./recall-index/postgres-index.js";
import { withConnection, type PostgresConnector } from "./pg-connection.js";
import { quoteIdentifier } from "./sql.js";

export interface PostgresSaverInternals extends BaseCheckpointSaver {
  pool: PostgresConnector;
  options: { schema: string };
  _dumpCheckpoint(checkpoint: Checkpoint): Record<string, unknown>;
  _dumpBlobs(
    threadId: string,
    ns: string,
    values: Record<string, unknown>,
    versions: ChannelVersions,
  ): Promise<unknown[][]>;
  _dumpMetadata(metadata: CheckpointMetadata): Promise<unknown>;
  _loadCheckpoint(checkpoint: unknown, blobs: Array<[Uint8Array, Uint8Array, Uint8Array]>): Promise<Checkpoint>;
  _loadMetadata(metadata: unknown): Promise<CheckpointMetadata>;
  _loadWrites(writes: Array<[Uint8Array, Uint8Array, Uint8Array, Uint8Array]>): Promise<CheckpointPendingWrite[]>;
  SQL_STATEMENTS: { UPSERT_CHECKPOINT_BLOBS_SQL: string };
}

export class PostgresWriter implements CompareAndSwapWriter {
  readonly backend = "postgres" as const;
  constructor(
    private readonly saver: PostgresSaverInternals,
    private readonly recallLanguage: string,
  ) {}

  async write(request: WriteRequest): Promise<WriteOutcome> {
    const { threadId, expectedCheckpointId, proposedVersion, build, recall } = request;
    const schema = quoteIdentifier(this.saver.options.schema);
    return withConnection(this.saver.pool, async (client): Promise<WriteOutcome> => {
      await client.query("BEGIN");
      try {
        await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 7243))", [
          `langgraph-compaction:${threadId}`,
        ]);
        const head = await client.query(
          `SELECT checkpoint_id FROM ${schema}.checkpoints WHERE thread_id = $1 AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1`,
          [threadId],
        );
        const pending = await client.query(
          `SELECT COUNT(*)::int AS n FROM ${schema}.checkpoint_writes WHERE thread_id = $1 AND checkpoint_ns = '' AND checkpoint_id = $2`,
          [threadId, expectedCheckpointId],
        );
        const refused = headVerdict(
          request,
          (head.rows[0]?.checkpoint_id as string | undefined) ?? null,
          pending.rows[0]!.n as number,
        );
        if (refused) {
          await client.query("ROLLBACK");
          return refused;
        }
        const stored = await client.query(
          `SELECT version FROM ${schema}.checkpoint_blobs WHERE thread_id = $1 AND checkpoint_ns = '' AND channel = 'messages'`,
          [threadId],
        );
        let highest = 0;
        for (const row of stored.rows) highest = Math.max(highest, Number.parseInt(String(row.version), 10) || 0);
        const { checkpoint, metadata, newVersions } = build(
          typeof proposedVersion === "number" ? Math.max(highest + 1, proposedVersion) : proposedVersion,
        );
        const candidate = newVersions.messages;
        if (typeof candidate === "number" && candidate <= highest) {
          throw new Error(`messages version ${candidate} is not above the stored ${highest}`);
        }
        const blobs = await this.saver._dumpBlobs(threadId, "", checkpoint.channel_values, newVersions);
        for (const blob of blobs) await client.query(this.saver.SQL_STATEMENTS.UPSERT_CHECKPOINT_BLOBS_SQL, blob);
        await client.query(
          `INSERT INTO ${schema}.checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata) VALUES ($1, '', $2, $3, $4, $5)`,
          [
            threadId,
            checkpoint.id,
            expectedCheckpointId,
            this.saver._dumpCheckpoint(checkpoint),
            await this.saver._dumpMetadata(metadata),
          ],
        );
        if (recall) await applyPostgresRecall(client, this.saver.options.schema, this.recallLanguage, recall);
        await client.query("COMMIT");
        return { status: "written" };
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      }
    });
  }
}
