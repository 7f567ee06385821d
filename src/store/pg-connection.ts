/**
 * A pooled Postgres connection held for a transaction. pg reports a connection lost while a client is checked out
 * (the server shut down, the session terminated, the network cut) as an "error" event on that client, which ends the
 * process when nothing listens; the query in flight rejects with the same error. So a held connection listens while
 * it is held, and a connection that failed is destroyed on release instead of going back to the pool.
 */

export interface PooledConnection {
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
  /** pg: a truthy argument destroys the connection instead of returning it to the pool. */
  release(error?: Error): void;
  on?(event: "error", listener: (error: Error) => void): unknown;
  removeListener?(event: "error", listener: (error: Error) => void): unknown;
}

/** What hands out connections: a pg Pool. */
export interface PostgresConnector {
  connect(): Promise<PooledConnection>;
}

/** Runs `work` on one connection of `pool`, released when it settles. */
export async function withConnection<T>(
  pool: PostgresConnector,
  work: (client: PooledConnection) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost = error;
  };
  client.on?.("error", onError);
  try {
    return await work(client);
  } finally {
    client.removeListener?.("error", onError);
    client.release(lost);
  }
}
