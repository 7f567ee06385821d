import { spawn } from "node:child_process";
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
      env: { ...process.env, OPENAI_API_KEY: "", POSTGRES_URL: "", DATABASE_PATH: "", NO_COLOR: "1", ...env },
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

export const compactThread = (args: string[], env: Record<string, string | undefined> = {}) => runTs("scripts/compact-thread.ts", args, env);
