/**
 * A worker killed mid-compaction on Postgres, at each phase (lease taken, summary started, summary written; the
 * phase drives the kill, no timer), and a worker whose database connections are cut while it summarizes: nothing is
 * lost, the dead worker's lease keeps others off the thread until it expires, and the next pass after that compacts
 * the thread.
 */
import { spawn } from "node:child_process";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditThread } from "../../src/engine/audit.js";
import { CompactionWorker, type ThreadOutcome } from "../../src/runtimes/worker/compaction-worker.js";
import { createTestAgent, seedTurns } from "../support/agents.js";
import { childArgs, ROOT } from "../support/child-entry.js";
import { createStore, type TestStore } from "../support/savers.js";

const LIMIT = 1_500;
const HOUR = 3_600_000;
const config = (thread: string) => ({ configurable: { thread_id: thread } });

interface ChildRun {
  steps: string[];
  signal: NodeJS.Signals | null;
}

/** The worker child on `url`; `atStep` is called with each step it prints (and may answer on its stdin). */
function runWorkerChild(
  url: string,
  schema: string,
  killAt: string,
  name: string,
  atStep: (step: string, answer: () => void) => void = () => undefined,
): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...childArgs("test/support/worker-child.ts"), url, schema, String(LIMIT), String(HOUR), killAt, name],
      {
        cwd: ROOT,
        env: { ...process.env, OPENAI_API_KEY: "" },
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    const steps: string[] = [];
    let buffer = "";
    child.stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
        const step = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        steps.push(step);
        atStep(step, () => child.stdin.end("continue\n"));
      }
    });
    child.on("error", reject);
    child.on("close", (_code, signal) => resolve({ steps, signal }));
  });
}

describe("a worker killed mid-compaction (Postgres)", () => {
  let store: TestStore;
  let admin: pg.Client;
  beforeAll(async () => {
    store = await createStore("postgres");
    admin = new pg.Client({ connectionString: store.location.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.end();
    await store.close();
  });

  const leases = () => `"${store.location.schema}".compaction_leases`;

  /** After the dead worker: its lease is respected while live, then (expired) taken over; the thread is compacted, nothing lost. */
  async function expectTakenOver(thread: string, leaseLeft: boolean): Promise<void> {
    expect((await auditThread(store.saver, config(thread))).problems).toEqual([]);
    const outcomes: ThreadOutcome[] = [];
    const worker = new CompactionWorker(await store.reopen(), {
      trigger: { tokens: LIMIT },
      idleMs: 0,
      env: {},
      onOutcome: (outcome) => void outcomes.push(outcome),
    });
    await worker.runOnce();
    if (leaseLeft) {
      expect(outcomes).toEqual([expect.objectContaining({ threadId: thread, status: "skipped", reason: "leased" })]);
      // Time passes: the dead worker's lease expires.
      await admin.query(`UPDATE ${leases()} SET expires_at = now() - interval '1 second' WHERE thread_id = $1`, [
        thread,
      ]);
      outcomes.length = 0;
      await worker.runOnce();
    }
    expect(outcomes).toEqual([expect.objectContaining({ threadId: thread, status: "compacted" })]);
    expect((await auditThread(store.saver, config(thread))).problems).toEqual([]);
    expect(
      (await admin.query(`SELECT 1 FROM ${leases()} WHERE thread_id = $1 AND owner <> ''`, [thread])).rows,
    ).toEqual([]);
  }

  for (const phase of ["leased", "summarizing", "summarized"]) {
    it(`SIGKILL at "${phase}": nothing lost, the lease expires, the next pass compacts`, async () => {
      const thread = `victim-${phase}`;
      await seedTurns(createTestAgent(store.saver).agent, thread, 30);
      // Only this thread is over the limit and unseen by the dead worker's peers.
      const run = await runWorkerChild(store.location.url!, store.location.schema!, phase, `worker-child-${phase}`);
      expect(run.signal).toBe("SIGKILL");
      expect(run.steps.at(-1)).toBe(phase);
      await expectTakenOver(thread, true);
    });
  }

  it("its database connections cut while it summarizes: nothing lost, and the thread compacted (by it, reconnected, or by the next pass)", async () => {
    const thread = "victim-connection";
    await seedTurns(createTestAgent(store.saver).agent, thread, 30);
    const name = `worker-child-cut-${process.pid}`;
    const run = await runWorkerChild(store.location.url!, store.location.schema!, "pause", name, (step, answer) => {
      if (step !== "summarizing") return;
      // The child's connections, and no other process's (suites share this server).
      void admin
        .query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [name])
        .then(answer, answer);
    });
    expect(run.steps).toContain("summarizing");
    const outcome = run.steps.find((step) => step.startsWith("outcome:"));
    expect(outcome, run.steps.join(" ")).toBeDefined();
    if (outcome!.startsWith("outcome:compacted")) {
      // The pool opened new connections for the write: compacted, the lease given back, nothing lost.
      expect((await auditThread(store.saver, config(thread))).problems).toEqual([]);
      expect(
        (await admin.query(`SELECT 1 FROM ${leases()} WHERE thread_id = $1 AND owner <> ''`, [thread])).rows,
      ).toEqual([]);
    } else {
      const leaseLeft =
        (await admin.query(`SELECT 1 FROM ${leases()} WHERE thread_id = $1 AND owner <> ''`, [thread])).rows.length > 0;
      await expectTakenOver(thread, leaseLeft);
    }
  });
});
