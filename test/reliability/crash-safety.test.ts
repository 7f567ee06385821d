/**
 * Crash safety: a child process compacts a 1,000-message thread in a SQLite file and is killed with SIGKILL —
 * at a random moment, or on reaching a named phase (before the read, during the summary, after it, inside the write
 * transaction, after the commit). After each kill: PRAGMA integrity_check is ok, the head is the old checkpoint or
 * the complete replacement, nothing is lost (auditThread), and the next turn works.
 */
import { HumanMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import { spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditThread, getSummaryProvenance, validateHistory } from "../../src/index.js";
import { generateHistory } from "../../scripts/workload/history.js";
import { createRandom } from "../../scripts/workload/random.js";
import { createTestAgent } from "../support/agents.js";
import { recordFigures, size, FUZZ_SEED } from "../support/reliability.js";
import { ROOT } from "../support/run-script.js";

const TRIALS = size("CRASH_TRIALS", 50, 200);
const PHASES = ["started", "summarizing", "summarized", "in-transaction", "committed:compacted"];
const THREAD = "crash";

interface Trial {
  killAt?: string;
  delayMs?: number;
}

/** Spawn the child; kill it after `delayMs` (from its first phase) or let it kill itself. Returns the last phase. */
function runChild(path: string, summaryDelayMs: number, trial: Trial): Promise<{ phases: string[]; signal: NodeJS.Signals | null }> {
  return new Promise((resolvePromise, reject) => {
    const args = ["--import", "tsx", resolve(ROOT, "test/support/compact-child.ts"), path, THREAD, String(summaryDelayMs)];
    if (trial.killAt) args.push(trial.killAt);
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, OPENAI_API_KEY: "" } });
    let stdout = "";
    let stderr = "";
    let timer: NodeJS.Timeout | undefined;
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (trial.delayMs !== undefined && !timer && stdout.includes("phase:started")) {
        timer = setTimeout(() => child.kill("SIGKILL"), trial.delayMs);
      }
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const guard = setTimeout(() => reject(new Error(`child hung\n${stdout}\n${stderr}`)), 60_000);
    child.on("close", (code, signal) => {
      clearTimeout(guard);
      clearTimeout(timer);
      if (code !== null && code !== 0) return reject(new Error(`child failed (${code})\n${stderr}`));
      resolvePromise({ phases: stdout.split("\n").filter((line) => line.startsWith("phase:")).map((line) => line.slice(6)), signal });
    });
  });
}

describe("crash safety (SIGKILL during compaction, SQLite)", () => {
  let dir: string;
  let pristine: string;
  let oldHead: string;
  let originalIds: string[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "compaction-crash-"));
    pristine = join(dir, "pristine.sqlite");
    const saver = SqliteSaver.fromConnString(pristine);
    const { agent } = createTestAgent(saver);
    const messages = generateHistory({ seed: 7, messages: 1_000 });
    await agent.updateState({ configurable: { thread_id: THREAD } }, { messages }, "agent");
    const head = await saver.getTuple({ configurable: { thread_id: THREAD } });
    oldHead = head!.checkpoint.id;
    originalIds = (head!.checkpoint.channel_values.messages as Array<{ id: string }>).map((message) => message.id);
    expect(originalIds.length).toBeGreaterThanOrEqual(1_000);
    saver.db.pragma("wal_checkpoint(TRUNCATE)");
    saver.db.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(`survives ${TRIALS} kills: integrity ok, head old or new, nothing lost, next turn works`, async () => {
    const random = createRandom(FUZZ_SEED);
    const outcomes = { old: 0, new: 0 };
    const phasesAtKill: Record<string, number> = {};
    for (let index = 0; index < TRIALS; index++) {
      const path = join(dir, `trial-${index}.sqlite`);
      copyFileSync(pristine, path);
      // Two in five trials kill at a named phase (cycled); the rest at a random moment of the child's run.
      const trial: Trial = index % 5 < 2 ? { killAt: PHASES[Math.floor(index / 2) % PHASES.length] } : { delayMs: random.int(0, 450) };
      const { phases, signal } = await runChild(path, random.int(20, 200), trial);
      const last = signal === "SIGKILL" ? (phases.at(-1) ?? "before start") : "completed";
      phasesAtKill[last] = (phasesAtKill[last] ?? 0) + 1;

      const raw = new Database(path);
      expect(raw.pragma("integrity_check", { simple: true }), `trial ${index}`).toBe("ok");
      raw.close();
      const saver = SqliteSaver.fromConnString(path);
      const head = (await saver.getTuple({ configurable: { thread_id: THREAD } }))!;
      if (head.checkpoint.id === oldHead) {
        outcomes.old++;
      } else {
        outcomes.new++;
        expect(head.parentConfig?.configurable?.checkpoint_id).toBe(oldHead);
        const messages = head.checkpoint.channel_values.messages as unknown[];
        expect(validateHistory(messages)).toEqual([]);
        expect(getSummaryProvenance(messages[1])?.replacedCheckpointId).toBe(oldHead);
      }
      const audit = await auditThread(saver, { configurable: { thread_id: THREAD } });
      expect(audit.problems, `trial ${index} (${last})`).toEqual([]);
      expect(audit.messagesEver).toBe(originalIds.length);

      const { agent } = createTestAgent(saver);
      const result = await agent.invoke({ messages: [new HumanMessage({ id: `next-${index}`, content: "And what is the total?" })] }, { configurable: { thread_id: THREAD } });
      expect(result.messages.at(-1)!.getType()).toBe("ai");
      const after = await auditThread(saver, { configurable: { thread_id: THREAD } });
      expect(after.problems).toEqual([]);
      expect(after.messagesEver).toBe(originalIds.length + 2);
      saver.db.close();
      rmSync(path, { force: true });
      rmSync(`${path}-wal`, { force: true });
      rmSync(`${path}-shm`, { force: true });
    }
    const kills = Object.entries(phasesAtKill).filter(([phase]) => phase !== "completed").reduce((sum, [, count]) => sum + count, 0);
    recordFigures("crash", { trials: TRIALS, kills, headsOld: outcomes.old, headsNew: outcomes.new, lastPhaseBeforeKill: phasesAtKill, messagesPerThread: originalIds.length, messagesLost: 0 });
    expect(kills).toBeGreaterThanOrEqual(TRIALS * 0.8);
    expect(outcomes.old).toBeGreaterThan(0);
    expect(outcomes.new).toBeGreaterThan(0);
  }, TRIALS * 10_000);
});
