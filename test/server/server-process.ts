/**
 * The Agent Server as the server suites start it: a free local port, and a child that is ready when it prints its
 * own "Server running at" line (a signal, never a delay).
 */
import type { ChildProcess } from "node:child_process";
import { createServer } from "node:net";

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

/** Resolves once `child` says it listens; rejects with its output if it exits first. `output` returns all it printed. */
export async function untilListening(child: ChildProcess): Promise<{ output: () => string }> {
  let log = "";
  await new Promise<void>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      log += chunk.toString();
      if (/Server running at/.test(log.replace(/\u001b\[[0-9;]*m/g, ""))) resolve();
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.on("exit", (code) => reject(new Error(`the Agent Server exited (${code}) before listening:\n${log}`)));
  });
  return { output: () => log };
}

/** The environment the suites start the server with: no tracing, no colour. */
export const SERVER_ENV = { LANGSMITH_TRACING: "false", LANGCHAIN_TRACING_V2: "false", NO_COLOR: "1", FORCE_COLOR: "0" };
