/**
 * Runs a child that reports the steps it reaches ("step:<name>" lines, and "steps:<n>" at the end of an uninterrupted
 * run) and may kill itself at one of them (compact-child.ts, prune-child.ts): the steps it reported, the total when
 * it finished, and the signal that ended it. A non-zero exit is an error carrying the child's stderr.
 */
import "../../src/store/all-backends.js";
import { spawn } from "node:child_process";
import { childArgs, ROOT } from "./child-entry.js";

export interface StepRun {
  steps: string[];
  total?: number;
  signal: NodeJS.Signals | null;
}

export function runStepChild(script: string, args: string[]): Promise<StepRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...childArgs(script), ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, OPENAI_API_KEY: "" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (code, signal) => {
      if (code !== null && code !== 0) return reject(new Error(`child failed (${code})\n${stderr}`));
      const lines = stdout.split("\n");
      const total = lines.find((line) => line.startsWith("steps:"));
      resolvePromise({
        steps: lines.filter((line) => line.startsWith("step:")).map((line) => line.slice(5)),
        ...(total ? { total: Number(total.slice(6)) } : {}),
        signal,
      });
    });
  });
}
