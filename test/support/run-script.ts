import { spawn } from "node:child_process";
import { vi } from "vitest";
import { main } from "../../src/cli/main.js";
import { REPOSITORY_INVOCATION } from "../../scripts/compact-thread-invocation.js";
import { childArgs, ROOT } from "./child-entry.js";

export { ROOT };

export interface ScriptResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Run a TypeScript entry point of the project in a child process (its bundle, see child-entry.ts). `prefix`: a command the child
 * runs under (e.g. `["unshare", "-U"]`).
 */
export function runTs(
  script: string,
  args: string[],
  env: Record<string, string | undefined> = {},
  timeoutMs = 120_000,
  { prefix = [] }: { prefix?: string[] } = {},
): Promise<ScriptResult> {
  return new Promise((resolvePromise, reject) => {
    const command = [...prefix, process.execPath, ...childArgs(script), ...args];
    const child = spawn(command[0]!, command.slice(1), {
      cwd: ROOT,
      env: scriptEnvironment(env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${script} ${args.join(" ")} timed out\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolvePromise({ code: code ?? -1, stdout, stderr });
    });
  });
}

export const compactThread = (args: string[], env: Record<string, string | undefined> = {}) =>
  runTs("scripts/compact-thread.ts", args, env);

/** The environment a script run gets: the test's own, without a key, a store or colours unless the test sets them. */
function scriptEnvironment(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  return { ...process.env, OPENAI_API_KEY: "", POSTGRES_URL: "", DATABASE_PATH: "", NO_COLOR: "1", ...env };
}

let inProcess: Promise<unknown> = Promise.resolve();

/**
 * The compaction script run in this process: its `main`, exactly as the script's entry point calls it, with what it
 * writes to stdout and stderr captured and its exit code returned. For the script's behaviour (output, exit codes,
 * what it writes to the store); a test about processes — a script racing another writer, a lock held by another
 * process, a signal — runs the script as a process (`compactThread`). Runs one at a time (the capture is this
 * process's stdout and stderr).
 */
export function runScript(args: string[], env: Record<string, string | undefined> = {}): Promise<ScriptResult> {
  const run = inProcess.then(async () => {
    let stdout = "";
    let stderr = "";
    const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => ((stdout += String(chunk)), true));
    const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => ((stderr += String(chunk)), true));
    try {
      const code = await main(args, scriptEnvironment(env), REPOSITORY_INVOCATION);
      return { code, stdout, stderr };
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
  });
  inProcess = run.catch(() => undefined);
  return run;
}
