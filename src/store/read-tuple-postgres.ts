/**
 * A checkpoint of a PostgresSaver's thread read with its blobs and pending writes as rows of their own, then loaded by
 * the saver's own code (`_loadCheckpoint`, `_loadMetadata`, `_loadWrites`), so the tuple is the one `getTuple`
 * returns. `getTuple` selects the blobs as one array of byte arrays, which the driver parses character by character:
 * a head of 60 messages took 7 ms against 3 ms here, and reading heads was most of a busy worker's time.
 */
import type { CheckpointTuple } from "@langchain/langgraph-checkpoint";
import type { PostgresPool } from "./recall-index/postgres-index.js";
import { quoteIdentifier } from "./sql.js";
import type { PostgresSaverInternals } from "./swap-postgres.js";

const encoder = new TextEncoder();
const bytes = (text: unknown) => encoder.encode(String(text));

/** The thread's root-namespace head, or its checkpoint `checkpointId`; undefined when there is none. */
export async function readPostgresTuple(
  saver: PostgresSaverInternals,
  threadId: string,
  checkpointId?: string,
): Promise<CheckpointTuple | undefined> {
  const pool = saver.pool as unknown as PostgresPool;
  const s = quoteIdentifier(saver.options.schema);
  const found = await pool.query(
    checkpointId === undefined
      ? `SELECT checkpoint_id, parent_checkpoint_id, checkpoint, metadata FROM ${s}.checkpoints
         WHERE thread_id = $1 AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1`
      : `SELECT checkpoint_id, parent_checkpoint_id, checkpoint, metadata FROM ${s}.checkpoints
         WHERE thread_id = $1 AND checkpoint_ns = '' AND checkpoint_id = $2`,
    checkpointId === undefined ? [threadId] : [threadId, checkpointId],
  );
  const row = found.rows[0] as
    | {
        checkpoint_id: string;
        parent_checkpoint_id: string | null;
        checkpoint: { v?: number } & Record<string, unknown>;
        metadata: unknown;
      }
    | undefined;
  if (!row) return undefined;
  const config = { configurable: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: row.checkpoint_id } };
  // A checkpoint of an older format is migrated by the saver as it reads it.
  if ((row.checkpoint.v ?? 0) < 4 && row.parent_checkpoint_id !== null) return saver.getTuple(config);
  const [blobs, writes] = await Promise.all([
    pool.query(
      `SELECT bl.channel, bl.type, bl.blob FROM jsonb_each_text($2::jsonb) AS v
       JOIN ${s}.checkpoint_blobs bl ON bl.thread_id = $1 AND bl.checkpoint_ns = '' AND bl.channel = v.key AND bl.version = v.value`,
      [threadId, JSON.stringify(row.checkpoint.channel_versions ?? {})],
    ),
    pool.query(
      `SELECT task_id, channel, type, blob FROM ${s}.checkpoint_writes
       WHERE thread_id = $1 AND checkpoint_ns = '' AND checkpoint_id = $2 ORDER BY task_id, idx`,
      [threadId, row.checkpoint_id],
    ),
  ]);
  return {
    config,
    checkpoint: await saver._loadCheckpoint(
      row.checkpoint,
      blobs.rows.map((blob) => [bytes(blob.channel), bytes(blob.type), blob.blob as Uint8Array]),
    ),
    metadata: await saver._loadMetadata(row.metadata),
    ...(row.parent_checkpoint_id === null
      ? {}
      : {
          parentConfig: {
            configurable: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: row.parent_checkpoint_id },
          },
        }),
    pendingWrites: await saver._loadWrites(
      writes.rows.map((write) => [
        bytes(write.task_id),
        bytes(write.channel),
        bytes(write.type),
        write.blob as Uint8Array,
      ]),
    ),
  };
}
