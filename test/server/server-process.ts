/**
 * The Agent Server as the server suites start it: a free local port, and a child that is ready when it prints its
 * own "Server running at" line (a signal, never a delay).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The graph the server suites deploy (fixture/agent.ts: createAgent with compactionMiddleware, scripted models). */
export const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), "fixture");

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Resolves once `child` says it listens; rejects with its output if it logs an error or exits first. `output` returns
 * all it printed.
 */
export async function untilListening(child: ChildProcess): Promise<{ output: () => string }> {
  let log = "";
  await new Promise<void>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      log += chunk.toString();
      const plain = log.replace(/\u001b\[[0-9;]*m/g, "");
      if (/Server running at/.test(plain)) resolve();
      // A graph that fails to load is logged, and the server stays up serving nothing: fail now, with its output.
      else if (/^error:/m.test(plain)) reject(new Error(`the Agent Server failed to start:\n${plain}`));
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.on("exit", (code) => reject(new Error(`the Agent Server exited (${code}) before listening:\n${log}`)));
  });
  return { output: () => log };
}

/** The environment the suites start the server with: no tracing, no colour. */
export const SERVER_ENV = {
  LANGSMITH_TRACING: "false",
  LANGCHAIN_TRACING_V2: "false",
  NO_COLOR: "1",
  FORCE_COLOR: "0",
};

/** `langgraphjs dev` on the fixture; resolves when the server says it is listening (its own line, not a delay). */
export async function startFixtureServer(port: number): Promise<{ child: ChildProcess; output: () => string }> {
  rmSync(join(FIXTURE, ".langgraph_api"), { recursive: true, force: true });
  const cli = join(
    dirname(createRequire(import.meta.url).resolve("@langchain/langgraph-cli/package.json")),
    "dist",
    "cli",
    "cli.mjs",
  );
  const child = spawn(
    process.execPath,
    [cli, "dev", "--no-browser", "--port", String(port), "--config", join(FIXTURE, "langgraph.json")],
    {
      cwd: FIXTURE,
      detached: true,
      env: { ...process.env, OPENAI_API_KEY: "", ...SERVER_ENV },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  return { child, ...(await untilListening(child)) };
}
