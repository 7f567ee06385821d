/**
 * The vectors of a thread's indexed messages, per embedding model: what the optional semantic ranking of the recall
 * search compares a query with (recall/semantic.ts). A cache beside the index, in the same store (a SQLite table, a
 * Postgres table, a BaseStore namespace, the process): the ranking fills it on the first search that needs a
 * message's vector, so every message is sent to the embedding model once per model. A row keeps a hash of the text it
 * was made from; a message indexed again with another text is embedded again.
 */
import { createHash } from "node:crypto";

export interface StoredVector {
  messageId: string;
  /** `vectorTextHash` of the text the vector was made from. */
  hash: string;
  vector: Float32Array;
}

export interface RecallVectors {
  /** The thread's stored vectors of `model`. */
  read(threadId: string, model: string): Promise<StoredVector[]>;
  /** Stores `vectors` of `model`, replacing those of the same messages (idempotently by message id). */
  write(threadId: string, model: string, vectors: readonly StoredVector[]): Promise<void>;
}

/** A short hash of the text a vector is made from. */
export function vectorTextHash(text: string): string {
  return createHash("sha256").update(text).digest("base64url").slice(0, 22);
}

/** A vector as bytes (little-endian float32), and back. */
export function vectorBytes(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

export function vectorFromBytes(bytes: Uint8Array): Float32Array {
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer);
}

/** Vectors kept in the process (the in-process index's, and a read-only store's). */
export class MemoryVectors implements RecallVectors {
  private readonly rows = new Map<string, Map<string, StoredVector>>();

  async read(threadId: string, model: string): Promise<StoredVector[]> {
    return [...(this.rows.get(JSON.stringify([threadId, model]))?.values() ?? [])];
  }

  async write(threadId: string, model: string, vectors: readonly StoredVector[]): Promise<void> {
    const key = JSON.stringify([threadId, model]);
    const rows = this.rows.get(key) ?? new Map<string, StoredVector>();
    for (const vector of vectors) rows.set(vector.messageId, vector);
    this.rows.set(key, rows);
  }
}
