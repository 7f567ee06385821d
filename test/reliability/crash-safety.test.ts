/**
 * Crash safety: a child process compacts a 1,000-message thread in a SQLite file and is killed with SIGKILL at a
 * step it reports — a named phase (before the read, during the summary, after it, inside the write transaction after
 * the checkpoint row, inside it after the first recall index row, after the commit) or the n-th SQL statement, n
 * drawn from the statements of an uninterrupted run. The child kills itself on reaching the step, so where a kill
 * lands never depends on timing or machine load. After each kill: PRAGMA integrity_check is ok, the head is the old
 * checkpoint or the complete replacement, the recall index holds nothing (old head) or exactly the messages that left
 * the head (new head), nothing is lost (auditThread), and the next turn works.
 */
import { HumanMessage, RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditThread, getSummaryProvenance } from "../../src/index.js";
import { validateHistory } from "../../src/internal.js";
import { generateHistory } from "../../scripts/workload/history.js";
import { createRandom } from "../../scripts/workload/random.js";
import { createTestAgent } from "../support/agents.js";
import { recordFigures, size, FUZZ_SEED, FULL } from "../support/reliability.js";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { pruneThread } from "../../src/engine/prune.js";
import { readTranscript } from "../../src/recall/transcript.js";
import { threadStoreFor } from "../../src/store/thread-store.js";
import { runStepChild, type StepRun } from "../support/step-child.js";
import { createTeam } from "../support/team.js";

// npm test: each named phase once, then kills at drawn statements; test:reliability: 200 and 50 trials.
const TRIALS = size("CRASH_TRIALS", 7, 200);
const REBASE_TRIALS = size("CRASH_REBASE_TRIALS", 6, 50);
// npm test: each phase of a log's compaction once; test:reliability: 40 trials, the rest at drawn statements.
const LOG_TRIALS = size("CRASH_LOG_TRIALS", 7, 40);
// npm test: each prune phase and one drawn statement; test:reliability: every statement of the prune.
const PRUNE_TRIALS = FULL ? Infinity : size("CRASH_PRUNE_TRIALS", 1, 1);
const PRUNE_PHASES = ["prune:in-transaction", "prune:backfilled", "prune:deleted"];
const PHASES = [
  "started",
  "summarizing",
  "summarized",
  "in-transaction",
  "in-transaction:recall",
  "committed:compacted",
];
const THREAD = "crash";

/** Runs the compaction (or prune) child, which kills itself on reaching `killAt` (if given). */
function runChild(
  path: string,
  killAt?: string,
  mode: "plain" | "rebase" | "prune" | "log" = "plain",
): Promise<StepRun> {
  return runStepChild("test/support/compact-child.ts", [path, THREAD, killAt ?? "-", mode]);
}

/** Kill a child at `killAt` on `path`: it died there by SIGKILL, and the file it left passes SQLite's integrity check. */
async function killAndCheck(
  path: string,
  killAt: string,
  mode: "plain" | "rebase" | "prune" | "log",
  label: string,
): Promise<StepRun> {
  const run = await runChild(path, killAt, mode);
  expect(run.signal, label).toBe("SIGKILL");
  expect(run.steps.at(-1)).toBe(killAt);
  const raw = new Database(path);
  expect(raw.pragma("integrity_check", { simple: true }), label).toBe("ok");
  raw.close();
  return run;
}

/** The message ids in the recall index of the thread (none if the file has no index). */
function indexedIds(path: string): string[] {
  const raw = new Database(path, { readonly: true });
  try {
    const table = raw.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'compaction_recall'`).get();
    if (!table) return [];
    return (
      raw.prepare(`SELECT message_id FROM compaction_recall WHERE thread_id = ?`).all(THREAD) as Array<{
        message_id: string;
      }>
    ).map((row) => row.message_id);
  } finally {
    raw.close();
  }
}

describe("crash safety (SIGKILL during compaction, SQLite)", () => {
  let dir: string;
  let pristine: string;
  let oldHead: string;
  let originalIds: string[];
  let statements: number;

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

    // An uninterrupted run counts the statements a compaction runs: the range the kill points are drawn from.
    const calibration = join(dir, "calibration.sqlite");
    copyFileSync(pristine, calibration);
    const run = await runChild(calibration);
    expect(run.steps.at(-1)).toBe("committed:compacted");
    expect(run.steps).toContain("in-transaction:recall");
    statements = run.total!;
    expect(statements).toBeGreaterThan(10);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    `survives ${TRIALS} kills: integrity ok, head old or new, nothing lost, next turn works`,
    async () => {
      const random = createRandom(FUZZ_SEED);
      const outcomes = { old: 0, new: 0 };
      const phasesAtKill: Record<string, number> = {};
      for (let index = 0; index < TRIALS; index++) {
        const path = join(dir, `trial-${index}.sqlite`);
        copyFileSync(pristine, path);
        // Each named phase first; then two in five trials at a named phase (cycled), the rest at a statement drawn
        // from the whole run.
        const killAt =
          index < PHASES.length
            ? PHASES[index]!
            : index % 5 < 2
              ? PHASES[index % PHASES.length]!
              : `sql:${random.int(1, statements)}`;
        const { steps } = await killAndCheck(path, killAt, "plain", `trial ${index} (${killAt})`);
        const last = PHASES.includes(killAt)
          ? killAt
          : ([...steps].reverse().find((step) => PHASES.includes(step)) ?? "before start");
        phasesAtKill[last] = (phasesAtKill[last] ?? 0) + 1;

        const saver = SqliteSaver.fromConnString(path);
        const head = (await saver.getTuple({ configurable: { thread_id: THREAD } }))!;
        const indexed = indexedIds(path);
        if (head.checkpoint.id === oldHead) {
          outcomes.old++;
          expect(indexed, `trial ${index} (${killAt}): index rows without their head`).toEqual([]);
        } else {
          outcomes.new++;
          expect(head.parentConfig?.configurable?.checkpoint_id).toBe(oldHead);
          const messages = head.checkpoint.channel_values.messages as unknown[];
          expect(validateHistory(messages)).toEqual([]);
          expect(getSummaryProvenance(messages[1])?.replacedCheckpointId).toBe(oldHead);
          const kept = new Set((messages as Array<{ id?: string }>).map((message) => message.id));
          const left = originalIds.filter((id) => !kept.has(id));
          expect(left.length).toBeGreaterThan(0);
          expect([...indexed].sort(), `trial ${index} (${killAt}): a head without its index rows`).toEqual(
            [...left].sort(),
          );
        }
        const audit = await auditThread(saver, { configurable: { thread_id: THREAD } });
        expect(audit.problems, `trial ${index} (${last})`).toEqual([]);
        expect(audit.messagesEver).toBe(originalIds.length);

        const { agent } = createTestAgent(saver);
        const result = await agent.invoke(
          { messages: [new HumanMessage({ id: `next-${index}`, content: "And what is the total?" })] },
          { configurable: { thread_id: THREAD } },
        );
        expect(result.messages.at(-1)!.getType()).toBe("ai");
        const after = await auditThread(saver, { configurable: { thread_id: THREAD } });
        expect(after.problems).toEqual([]);
        expect(after.messagesEver).toBe(originalIds.length + 2);
        saver.db.close();
        rmSync(path, { force: true });
        rmSync(`${path}-wal`, { force: true });
        rmSync(`${path}-shm`, { force: true });
      }
      recordFigures("crash", {
        trials: TRIALS,
        statementsPerCompaction: statements,
        headsOld: outcomes.old,
        headsNew: outcomes.new,
        lastPhaseBeforeKill: phasesAtKill,
        messagesPerThread: originalIds.length,
        messagesLost: 0,
      });
      expect(outcomes.old).toBeGreaterThan(0);
      expect(outcomes.new).toBeGreaterThan(0);
    },
    120_000 + TRIALS * 10_000,
  );

  it(
    `rebasing: survives kills between the summary and the rebased write, and inside it`,
    async () => {
      const REBASE_PHASES = [
        "summarized",
        "appended",
        "in-transaction",
        "in-transaction:recall",
        "committed:compacted",
      ];
      const calibration = join(dir, "rebase-calibration.sqlite");
      copyFileSync(pristine, calibration);
      const run = await runChild(calibration, undefined, "rebase");
      expect(run.steps.at(-1)).toBe("committed:compacted");
      expect(run.steps).toContain("appended");
      const total = run.total!;
      const appendedAt = run.steps.indexOf("appended");
      expect(appendedAt).toBeGreaterThan(0);
      const random = createRandom(FUZZ_SEED + 1);
      const heads = { old: 0, appended: 0, rebased: 0 };
      const trials = Math.max(REBASE_PHASES.length + 1, REBASE_TRIALS);
      for (let index = 0; index < trials; index++) {
        const path = join(dir, `rebase-${index}.sqlite`);
        copyFileSync(pristine, path);
        const killAt = index < REBASE_PHASES.length ? REBASE_PHASES[index]! : `sql:${random.int(1, total)}`;
        await killAndCheck(path, killAt, "rebase", `rebase trial ${index} (${killAt})`);
        const saver = SqliteSaver.fromConnString(path);
        const head = (await saver.getTuple({ configurable: { thread_id: THREAD } }))!;
        const messages = head.checkpoint.channel_values.messages as Array<{ id?: string }>;
        const summary = getSummaryProvenance(messages[1]);
        const audit = await auditThread(saver, { configurable: { thread_id: THREAD } });
        expect(audit.problems, `rebase trial ${index} (${killAt})`).toEqual([]);
        if (head.checkpoint.id === oldHead) {
          heads.old++;
          expect(indexedIds(path)).toEqual([]);
        } else if (!summary) {
          // The appended turn landed, the rebased write did not: the thread is the old one plus that turn.
          heads.appended++;
          expect(messages.some((message) => message.id === "appended-turn")).toBe(true);
          expect(messages.length).toBe(originalIds.length + 2);
          expect(indexedIds(path)).toEqual([]);
        } else {
          heads.rebased++;
          // A complete replacement written after the appended turn, carrying it, its summary computed before it.
          expect(validateHistory(messages)).toEqual([]);
          expect(summary.replacedCheckpointId).toBe(oldHead);
          expect(messages.some((message) => message.id === "appended-turn")).toBe(true);
          expect(messages.at(-1)!.id).not.toBe(originalIds.at(-1));
          const kept = new Set(messages.map((message) => message.id));
          expect([...indexedIds(path)].sort()).toEqual(originalIds.filter((id) => !kept.has(id)).sort());
        }
        expect(audit.messagesEver).toBe(originalIds.length + (head.checkpoint.id === oldHead ? 0 : 2));
        saver.db.close();
        for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
      }
      recordFigures("crash", { rebaseTrials: trials, rebaseHeads: heads });
      expect(heads.appended).toBeGreaterThan(0);
      expect(heads.rebased).toBeGreaterThan(0);
    },
    120_000 + REBASE_TRIALS * 10_000,
  );
  it(
    `a log thread: survives kills during its new segment, during a reflection of the older segments and inside the write`,
    async () => {
      const LOG_PHASES = [
        "summarizing",
        "reflecting",
        "reflected",
        "in-transaction",
        "in-transaction:recall",
        "committed:compacted",
      ];
      // Compact the thread as a log, uninterrupted, until a compaction reflects: the file before that one is where
      // every trial starts.
      const base = join(dir, "log-base.sqlite");
      copyFileSync(pristine, base);
      let calibration: StepRun | undefined;
      for (let compaction = 0; compaction < 8 && !calibration; compaction++) {
        const probe = join(dir, "log-probe.sqlite");
        copyFileSync(base, probe);
        const run = await runChild(probe, undefined, "log");
        expect(run.steps.at(-1)).toBe("committed:compacted");
        if (run.steps.includes("reflecting")) calibration = run;
        else copyFileSync(probe, base);
        for (const suffix of ["", "-wal", "-shm"]) rmSync(`${probe}${suffix}`, { force: true });
      }
      expect(calibration, "a log compaction that reflects").toBeDefined();
      const before = SqliteSaver.fromConnString(base);
      const config = { configurable: { thread_id: THREAD } };
      const baseHead = (await before.getTuple(config))!;
      const baseMessages = baseHead.checkpoint.channel_values.messages as BaseMessage[];
      // The messages of the head before, summaries aside (a summary is replaced, never indexed).
      const baseIds = baseMessages.filter((message) => !getSummaryProvenance(message)).map((message) => message.id!);
      const baseSegments = getSummaryProvenance(baseMessages[1])?.segments;
      expect(baseSegments?.length).toBeGreaterThan(0);
      before.db.pragma("wal_checkpoint(TRUNCATE)");
      before.db.close();
      const baseIndexed = indexedIds(base);
      const random = createRandom(FUZZ_SEED + 3);
      const heads = { old: 0, new: 0 };
      for (let index = 0; index < Math.max(LOG_PHASES.length, LOG_TRIALS); index++) {
        const path = join(dir, `log-${index}.sqlite`);
        copyFileSync(base, path);
        const killAt = index < LOG_PHASES.length ? LOG_PHASES[index]! : `sql:${random.int(1, calibration!.total!)}`;
        await killAndCheck(path, killAt, "log", `log trial ${index} (${killAt})`);
        const saver = SqliteSaver.fromConnString(path);
        const head = (await saver.getTuple(config))!;
        const indexed = indexedIds(path);
        if (head.checkpoint.id === baseHead.checkpoint.id) {
          heads.old++;
          expect([...indexed].sort(), `log trial ${index} (${killAt})`).toEqual([...baseIndexed].sort());
        } else {
          heads.new++;
          // A complete replacement: the reflected log and its new segment, the messages that left the head indexed.
          expect(head.parentConfig?.configurable?.checkpoint_id).toBe(baseHead.checkpoint.id);
          const messages = head.checkpoint.channel_values.messages as BaseMessage[];
          expect(validateHistory(messages)).toEqual([]);
          const provenance = getSummaryProvenance(messages[1]);
          expect(provenance?.replacedCheckpointId).toBe(baseHead.checkpoint.id);
          expect(provenance?.condensations ?? 0).toBeGreaterThan(0);
          const kept = new Set(messages.map((message) => message.id));
          const left = baseIds.filter((id) => !kept.has(id) && !baseIndexed.includes(id));
          expect(left.length).toBeGreaterThan(0);
          expect([...indexed].sort(), `log trial ${index} (${killAt})`).toEqual([...baseIndexed, ...left].sort());
        }
        const audit = await auditThread(saver, config);
        expect(audit.problems, `log trial ${index} (${killAt})`).toEqual([]);
        expect(audit.messagesEver).toBe(originalIds.length);
        const { agent } = createTestAgent(saver);
        const result = await agent.invoke(
          { messages: [new HumanMessage({ id: `log-next-${index}`, content: "And what is the total?" })] },
          config,
        );
        expect(result.messages.at(-1)!.getType()).toBe("ai");
        expect((await auditThread(saver, config)).problems).toEqual([]);
        saver.db.close();
        for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
      }
      recordFigures("crash", { logTrials: Math.max(LOG_PHASES.length, LOG_TRIALS), logHeads: heads });
      expect(heads.old).toBeGreaterThan(0);
      expect(heads.new).toBeGreaterThan(0);
    },
    120_000 + LOG_TRIALS * 10_000,
  );
  it(
    `pruning: survives kills at each phase and at ${PRUNE_TRIALS === Infinity ? "every" : PRUNE_TRIALS} SQL statement(s) of a prune: the head stays, every message stays`,
    async () => {
      // A thread with history to prune: compacted once, a graph-side removal (only old checkpoints hold those
      // messages, so the prune must write them to the transcript first), and a few turns.
      const prepared = join(dir, "prune-prepared.sqlite");
      const saver = SqliteSaver.fromConnString(prepared);
      const config = { configurable: { thread_id: THREAD } };
      await createTestAgent(saver).agent.updateState(
        config,
        { messages: generateHistory({ seed: 11, messages: 200 }) },
        "agent",
      );
      await new HistoryManager({ checkpointer: saver, env: {} }).compactThread(config, { compactionRatio: 0.3 });
      const { agent } = createTestAgent(saver);
      const head = (await saver.getTuple(config))!.checkpoint.channel_values.messages as BaseMessage[];
      const removed = head
        .filter((message) => message.getType() === "human")
        .slice(0, 3)
        .map((message) => message.id!);
      await agent.updateState(config, { messages: removed.map((id) => new RemoveMessage({ id })) }, "agent");
      for (let turn = 0; turn < 3; turn++)
        await agent.invoke(
          { messages: [new HumanMessage({ id: `after-${turn}`, content: `turn ${turn} after the compaction` })] },
          config,
        );
      const ever = new Set<string>();
      for (const { messages } of await threadStoreFor(saver).listCheckpoints(THREAD))
        for (const message of messages) if (!getSummaryProvenance(message)) ever.add(message.id!);
      const keptHead = (await saver.getTuple(config))!.checkpoint.id;
      // The graph's own removal: held by older checkpoints only (removedByApplication) until a prune writes those
      // messages to the transcript.
      const preparedAudit = await auditThread(saver, config);
      const preparedProblems = preparedAudit.problems;
      expect(preparedProblems).toEqual([]);
      expect(preparedAudit.removedByApplication).toBeGreaterThan(0);
      saver.db.pragma("wal_checkpoint(TRUNCATE)");
      saver.db.close();

      const calibration = join(dir, "prune-calibration.sqlite");
      copyFileSync(prepared, calibration);
      const run = await runChild(calibration, undefined, "prune");
      expect(run.steps.at(-1)).toBe("committed:pruned");
      const total = run.total!;
      const random = createRandom(FUZZ_SEED + 2);
      const statements =
        PRUNE_TRIALS === Infinity
          ? Array.from({ length: total }, (_, index) => index + 1)
          : Array.from({ length: PRUNE_TRIALS }, () => random.int(1, total));
      const kills = [...PRUNE_PHASES, ...statements.map((n) => `sql:${n}`)];
      const outcomes = { before: 0, after: 0 };
      for (const [index, killAt] of kills.entries()) {
        const path = join(dir, `prune-${index}.sqlite`);
        copyFileSync(prepared, path);
        await killAndCheck(path, killAt, "prune", `prune trial ${index} (${killAt})`);
        const reopened = SqliteSaver.fromConnString(path);
        // The head is never deleted, and nothing is lost: every message ever stored is in the head or the transcript.
        expect((await reopened.getTuple(config))!.checkpoint.id, `prune trial ${index} (${killAt})`).toBe(keptHead);
        // (A message the graph removed itself is in the transcript once the prune commits, in old checkpoints before.)
        const held = new Set(
          (await readTranscript(reopened, config, { limit: 10_000 })).messages.map((line) => line.message.id!),
        );
        for (const { messages } of await threadStoreFor(reopened).listCheckpoints(THREAD))
          for (const message of messages) held.add(message.id!);
        expect(
          [...ever].filter((id) => !held.has(id)),
          `prune trial ${index} (${killAt})`,
        ).toEqual([]);
        const audit = await auditThread(reopened, config);
        const checkpoints = (await threadStoreFor(reopened).listCheckpoints(THREAD)).length;
        // All or nothing: the thread as it was, or pruned with nothing missing.
        if (checkpoints === 1) {
          outcomes.after++;
          expect(audit.problems, `prune trial ${index} (${killAt})`).toEqual([]);
          // Pruned: what the graph removed is in the transcript now.
          expect(audit.removedByApplication, `prune trial ${index} (${killAt})`).toBe(0);
        } else {
          outcomes.before++;
          expect(audit.problems, `prune trial ${index} (${killAt})`).toEqual(preparedProblems);
          expect(audit.removedByApplication, `prune trial ${index} (${killAt})`).toBe(
            preparedAudit.removedByApplication,
          );
        }
        // The next turn works, and a prune after the crash completes.
        await createTestAgent(reopened).agent.invoke(
          { messages: [new HumanMessage({ id: `next-${index}`, content: "the turn after the crash" })] },
          config,
        );
        expect((await pruneThread(reopened, config, { keep: 1 })).status).toBe("pruned");
        reopened.db.close();
        for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
      }
      recordFigures("crash", { pruneTrials: kills.length, pruneStatements: total, pruneOutcomes: outcomes });
      expect(outcomes.before).toBeGreaterThan(0);
    },
    120_000 + 40 * 10_000,
  );

  it(
    `pruning a createSupervisor thread: survives kills at each phase and at drawn SQL statements; every message of every namespace stays`,
    async () => {
      // The sub-agents' tool calls and results live only in their subgraph namespaces' checkpoints.
      const prepared = join(dir, "team-prepared.sqlite");
      const saver = SqliteSaver.fromConnString(prepared);
      const config = { configurable: { thread_id: "team" } };
      const team = createTeam(saver);
      for (let index = 0; index < 6; index++) {
        const text =
          index % 2 === 0
            ? `Find the refund rule for case ${index}, please.`
            : `Fix the rounding bug in module ${index}.`;
        await team.invoke({ messages: [new HumanMessage({ id: `ask-${index}`, content: text })] }, config);
      }
      await new HistoryManager({ checkpointer: saver, env: {} }).compactThread(config, { compactionRatio: 0.3 });
      /** Every message id a stored checkpoint of the thread holds, in any namespace. */
      const storedIds = async (checkpointer: SqliteSaver) => {
        const ids = new Set<string>();
        const namespaces = checkpointer.db
          .prepare(`SELECT DISTINCT checkpoint_ns FROM checkpoints WHERE thread_id = 'team'`)
          .all() as Array<{ checkpoint_ns: string }>;
        for (const { checkpoint_ns } of namespaces) {
          for await (const tuple of checkpointer.list({ configurable: { thread_id: "team", checkpoint_ns } })) {
            for (const message of (tuple.checkpoint.channel_values.messages as BaseMessage[] | undefined) ?? [])
              if (message.id) ids.add(message.id);
          }
        }
        return ids;
      };
      const ever = await storedIds(saver);
      const subgraphCheckpoints = (
        saver.db
          .prepare(`SELECT count(*) AS n FROM checkpoints WHERE thread_id = 'team' AND checkpoint_ns <> ''`)
          .get() as { n: number }
      ).n;
      expect(subgraphCheckpoints).toBeGreaterThan(0);
      saver.db.pragma("wal_checkpoint(TRUNCATE)");
      saver.db.close();

      const calibration = join(dir, "team-calibration.sqlite");
      copyFileSync(prepared, calibration);
      const run = await runStepChild("test/support/compact-child.ts", [calibration, "team", "-", "prune"]);
      expect(run.steps.at(-1)).toBe("committed:pruned");
      const random = createRandom(FUZZ_SEED + 3);
      const kills = [
        ...PRUNE_PHASES,
        ...Array.from({ length: size("CRASH_TEAM_PRUNE_TRIALS", 1, 30) }, () => `sql:${random.int(1, run.total!)}`),
      ];
      const outcomes = { before: 0, after: 0 };
      for (const [index, killAt] of kills.entries()) {
        const label = `team prune trial ${index} (${killAt})`;
        const path = join(dir, `team-prune-${index}.sqlite`);
        copyFileSync(prepared, path);
        const killed = await runStepChild("test/support/compact-child.ts", [path, "team", killAt, "prune"]);
        expect(killed.signal, label).toBe("SIGKILL");
        const raw = new Database(path);
        expect(raw.pragma("integrity_check", { simple: true }), label).toBe("ok");
        raw.close();
        const reopened = SqliteSaver.fromConnString(path);
        // Every message of every namespace is in a stored checkpoint or in the transcript.
        const held = await storedIds(reopened);
        for (const line of (await readTranscript(reopened, config, { limit: 10_000 })).messages)
          held.add(line.message.id!);
        expect(
          [...ever].filter((id) => !held.has(id)),
          label,
        ).toEqual([]);
        const rootCheckpoints = (
          reopened.db
            .prepare(`SELECT count(*) AS n FROM checkpoints WHERE thread_id = 'team' AND checkpoint_ns = ''`)
            .get() as { n: number }
        ).n;
        if (rootCheckpoints === 1) outcomes.after++;
        else outcomes.before++;
        // A prune after the crash completes, and still loses nothing.
        expect((await pruneThread(reopened, config, { keep: 1 })).status).toBe("pruned");
        const after = await storedIds(reopened);
        for (const line of (await readTranscript(reopened, config, { limit: 10_000 })).messages)
          after.add(line.message.id!);
        expect(
          [...ever].filter((id) => !after.has(id)),
          label,
        ).toEqual([]);
        reopened.db.close();
        for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
      }
      recordFigures("crash", {
        teamPruneTrials: kills.length,
        teamPruneStatements: run.total,
        teamPruneOutcomes: outcomes,
      });
      expect(outcomes.before).toBeGreaterThan(0);
    },
    120_000 + 40 * 10_000,
  );
});
