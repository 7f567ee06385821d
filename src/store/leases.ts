/**
 * Leases per thread, for workers compacting the threads of one store side by side: a worker compacts a thread only
 * while it holds the thread's lease, so no two compact one thread at once. A lease expires on its own (a worker
 * killed mid-compaction holds nothing for long) and covers a compaction, never a turn: turns do not take it.
 *
 * A released lease stays as a row recording what its holder saw of the thread (head id, tokens): workers share what
 * they read, so a thread's head is read by the one worker that leased it, not by every worker that sees it change.
 *
 * Why a lease table rather than advisory locks: an advisory lock lives as long as the connection that took it, so a
 * worker would pin one pooled connection per thread in flight, and a lock cannot outlive a connection that a proxy
 * keeps open after its worker died; a row with an expiry is released by time, read by any connection, and the same
 * statement works on SQLite. Taking is one statement, an upsert that replaces only an expired lease (or the
 * owner's own), so two workers racing for one thread cannot both win; the database's clock decides expiry on
 * Postgres (one clock for every machine), the host's on SQLite (one host).
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import type { PostgresPool } from "./recall-index/postgres-index.js";
import { inTransaction } from "./recall-index/postgres-setup.js";
import { quoteIdentifier } from "./sql.js";
import type { PostgresSaverInternals } from "./swap-postgres.js";
import type { SqliteSaverLike } from "./swap-sqlite.js";
import type { ThreadStore } from "./thread-store.js";

/** What the worker that last held a thread's lease saw of it: the head it read or wrote, and its tokens. */
export interface SeenHead {
  headId: string;
  tokens: number;
}

export interface LeaseBackend {
  /**
   * Takes the thread's lease for `ttlMs` if no other owner holds a live one. `taken`: `owner` holds it now; `seen`:
   * what the last holder recorded of the thread, if anything.
   */
  take(threadId: string, owner: string, ttlMs: number): Promise<{ taken: boolean; seen?: SeenHead }>;
  /**
   * Gives the lease back (only `owner`'s), recording what the owner saw of the thread when it did, so that other
   * workers know the thread's tokens without reading its head.
   */
  release(threadId: string, owner: string, seen?: SeenHead): Promise<void>;
  /** What was recorded of these threads (those with a record), in one query. */
  known(threadIds: readonly string[]): Promise<Map<string, SeenHead>>;
}

/** The lease table in a Postgres schema, created on first use. */
export class PostgresLeases implements LeaseBackend {
  private ready?: Promise<void>;
  private readonly schema: string;

  constructor(
    private readonly pool: PostgresPool,
    schema: string,
  ) {
    this.schema = quoteIdentifier(schema);
  }

  private setup(): Promise<void> {
    // Concurrent first workers: the advisory lock serializes their CREATE ... IF NOT EXISTS, which otherwise race
    // on the catalog (a duplicate type or key error in all but one of them).
    this.ready ??= inTransaction(this.pool, async (client) => {
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended('langgraph-compaction:lease-schema', 7243))");
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${this.schema}.compaction_leases (thread_id text PRIMARY KEY, owner text NOT NULL, expires_at timestamptz NOT NULL, head_id text, tokens integer)`,
      );
    }).catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  async take(threadId: string, owner: string, ttlMs: number): Promise<{ taken: boolean; seen?: SeenHead }> {
    await this.setup();
    const result = await this.pool.query(
      `INSERT INTO ${this.schema}.compaction_leases AS lease (thread_id, owner, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
       ON CONFLICT (thread_id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
       WHERE lease.expires_at < now() OR lease.owner = EXCLUDED.owner
       RETURNING head_id, tokens`,
      [threadId, owner, ttlMs],
    );
    const row = result.rows[0];
    if (!row) return { taken: false };
    return row.head_id === null || row.head_id === undefined
      ? { taken: true }
      : { taken: true, seen: { headId: String(row.head_id), tokens: Number(row.tokens) } };
  }

  async release(threadId: string, owner: string, seen?: SeenHead): Promise<void> {
    await this.setup();
    await this.pool.query(
      `UPDATE ${this.schema}.compaction_leases SET owner = '', expires_at = '-infinity', head_id = coalesce($3, head_id), tokens = coalesce($4, tokens)
       WHERE thread_id = $1 AND owner = $2`,
      [threadId, owner, seen?.headId ?? null, seen?.tokens ?? null],
    );
  }

  async known(threadIds: readonly string[]): Promise<Map<string, SeenHead>> {
    if (threadIds.length === 0) return new Map();
    await this.setup();
    const result = await this.pool.query(
      `SELECT thread_id, head_id, tokens FROM ${this.schema}.compaction_leases WHERE thread_id = ANY($1) AND head_id IS NOT NULL`,
      [threadIds],
    );
    return new Map(
      result.rows.map((row) => [String(row.thread_id), { headId: String(row.head_id), tokens: Number(row.tokens) }]),
    );
  }
}

/** What the SQLite lease table needs of a better-sqlite3 database. */
interface SqliteDatabase {
  prepare(sql: string): {
    run(...values: unknown[]): unknown;
    get(...values: unknown[]): unknown;
    all(...values: unknown[]): unknown[];
  };
  exec(sql: string): unknown;
}

/** The lease table in the SQLite file (workers on one host), created on first use. */
export class SqliteLeases implements LeaseBackend {
  private ready = false;

  constructor(private readonly db: SqliteDatabase) {}

  private setup(): void {
    if (this.ready) return;
    this.db.exec(
      `CREATE TABLE IF NOT EXISTS compaction_leases (thread_id TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at INTEGER NOT NULL, head_id TEXT, tokens INTEGER)`,
    );
    this.ready = true;
  }

  async take(threadId: string, owner: string, ttlMs: number): Promise<{ taken: boolean; seen?: SeenHead }> {
    this.setup();
    const now = Date.now();
    const row = this.db
      .prepare(
        `INSERT INTO compaction_leases (thread_id, owner, expires_at) VALUES (?, ?, ?)
         ON CONFLICT (thread_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
         WHERE compaction_leases.expires_at < ? OR compaction_leases.owner = excluded.owner
         RETURNING head_id, tokens`,
      )
      .get(threadId, owner, now + ttlMs, now) as { head_id: string | null; tokens: number | null } | undefined;
    if (!row) return { taken: false };
    return row.head_id === null
      ? { taken: true }
      : { taken: true, seen: { headId: row.head_id, tokens: Number(row.tokens) } };
  }

  async release(threadId: string, owner: string, seen?: SeenHead): Promise<void> {
    this.setup();
    this.db
      .prepare(
        `UPDATE compaction_leases SET owner = '', expires_at = 0, head_id = coalesce(?, head_id), tokens = coalesce(?, tokens) WHERE thread_id = ? AND owner = ?`,
      )
      .run(seen?.headId ?? null, seen?.tokens ?? null, threadId, owner);
  }

  async known(threadIds: readonly string[]): Promise<Map<string, SeenHead>> {
    if (threadIds.length === 0) return new Map();
    this.setup();
    const rows = this.db
      .prepare(
        `SELECT thread_id, head_id, tokens FROM compaction_leases WHERE thread_id IN (SELECT value FROM json_each(?)) AND head_id IS NOT NULL`,
      )
      .all(JSON.stringify(threadIds)) as Array<{ thread_id: string; head_id: string; tokens: number }>;
    return new Map(rows.map((row) => [row.thread_id, { headId: row.head_id, tokens: Number(row.tokens) }]));
  }
}

/** Leases in this process, for MemorySaver and other savers (workers in one process). */
export class MemoryLeases implements LeaseBackend {
  private readonly held = new Map<string, { owner: string; expiresAt: number }>();
  private readonly seen = new Map<string, SeenHead>();

  async take(threadId: string, owner: string, ttlMs: number): Promise<{ taken: boolean; seen?: SeenHead }> {
    const now = Date.now();
    const lease = this.held.get(threadId);
    if (lease && lease.owner !== owner && lease.expiresAt >= now) return { taken: false };
    this.held.set(threadId, { owner, expiresAt: now + ttlMs });
    const seen = this.seen.get(threadId);
    return seen ? { taken: true, seen } : { taken: true };
  }

  async release(threadId: string, owner: string, seen?: SeenHead): Promise<void> {
    if (this.held.get(threadId)?.owner !== owner) return;
    this.held.delete(threadId);
    if (seen) this.seen.set(threadId, seen);
  }

  async known(threadIds: readonly string[]): Promise<Map<string, SeenHead>> {
    return new Map(threadIds.flatMap((id) => (this.seen.has(id) ? [[id, this.seen.get(id)!] as const] : [])));
  }
}

const leasesBySaver = new WeakMap<BaseCheckpointSaver, LeaseBackend>();

/**
 * The leases of a store's threads, where its backend keeps them: a table in the SQLite file or the Postgres schema,
 * in this process for any other saver (one per saver object). Only the worker takes leases: no other part of the
 * library loads this file.
 */
export function leasesOf(store: ThreadStore): LeaseBackend {
  let leases = leasesBySaver.get(store.saver);
  if (!leases) {
    leases =
      store.backend === "sqlite"
        ? new SqliteLeases((store.saver as SqliteSaverLike).db)
        : store.backend === "postgres"
          ? new PostgresLeases(
              (store.saver as PostgresSaverInternals).pool as unknown as PostgresPool,
              (store.saver as PostgresSaverInternals).options.schema,
            )
          : new MemoryLeases();
    leasesBySaver.set(store.saver, leases);
  }
  return leases;
}
