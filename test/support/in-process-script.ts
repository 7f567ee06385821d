/**
 * The compaction script run in this process (`main`), its output captured: cheaper than a child process where a
 * test reads what the script prints or its exit code.
 */
import { vi } from "vitest";
import { main } from "../../src/cli/main.js";
import type { ScriptResult } from "./run-script.js";

export async function runScriptInProcess(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<ScriptResult> {
  const out: string[] = [];
  const err: string[] = [];
  const stdout = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => (out.push(String(chunk)), true));
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => (err.push(String(chunk)), true));
  try {
    return { code: await main(argv, env), stdout: out.join(""), stderr: err.join("") };
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
}
