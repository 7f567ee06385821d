/**
 * Racing writers: two processes run turns on one thread through CompactingSupervisor (background compaction) while
 * the script compacts the same thread in a loop and undoes some of its compactions (restore) — on a SQLite file and
 * on Postgres. Afterwards every user message sent is in the head, covered by one of its summaries or recorded by the
 * write that removed it (auditThread), none twice; the turn processes' summaries were written by rebasing onto turns
 * that landed while they were computed; the recall index holds every message that left the head, anything more is
 * back in the head, and one more write makes it exact.
 */
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { BaseMessage } from "@langchain/core/messages";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { auditThread } from "../../src/index.js";
import { getSummaryProvenance } from "../../src/messages/summary-message.js";
import { threadStoreFor } from "../../src/store/thread-store.js";
import { readTranscript } from "../../src/recall/transcript.js";
import { entriesOutOfHead } from "../support/recall-view.js";
import { recordFigures, size } from "../support/reliability.js";
import { compactThread, runTs } from "../support/run-script.js";

const TURNS = size("RACE_TURNS", 5, 80);
const THREAD = "raced";

interface Store {
  schema?: string;
  kind: "sqlite" | "postgres";
  location: string;
  scriptArgs: string[];
  childArgs: string[];
  saver(): Promise<BaseCheckpointSaver>;
  close(saver: BaseCheckpointSaver): Promise<void>;
}

let dir: string;
beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), "compaction-race-"))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const stores: Array<[string, () => Promise<Store>]> = [
  [
    "sqlite",
    async () => {
      const path = join(dir, "race.sqlite");
      return {
        kind: "sqlite",
        location: path,
        scriptArgs: ["--db", path],
        childArgs: [path],
        saver: async () => SqliteSaver.fromConnString(path),
        close: async (saver) => void (saver as SqliteSaver).db.close(),
      };
    },
  ],
  [
    "postgres",
    async () => {
      const url = inject("postgresUrl");
      const schema = `race_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
      const setup = PostgresSaver.fromConnString(url, { schema });
      await setup.setup();
      await setup.end();
      return {
        kind: "postgres",
        location: url,
        scriptArgs: ["--postgres", url, "--schema", schema],
        childArgs: [url],
        saver: async () => PostgresSaver.fromConnString(url, { schema }),
        close: async (saver) => (saver as PostgresSaver).end(),
        schema,
      };
    },
  ],
];

describe.each(stores)("racing writers on %s", (kind, open) => {
  it(`two turn processes (${TURNS} turns each, background compaction) and the script compacting in a loop lose nothing`, async () => {
    const store = await open();
    const schema = store.schema;
    const lock = join(dir, `${kind}.lock`);
    const child = (prefix: string) =>
      runTs(
        "test/support/race-turns.ts",
        [...store.childArgs, THREAD, String(TURNS), prefix, lock, ...(schema ? [schema] : [])],
        {},
        600_000,
      );
    const seeded = await child("seed");
    expect(seeded.code, seeded.stderr).toBe(0);

    const writers = [child("a"), child("b")];
    let finished = false;
    void Promise.all(writers).then(() => (finished = true));
    // The script compacts in a loop, and undoes its first compaction and every third after it (a restore of the head it replaced).
    const scriptCodes: number[] = [];
    const restoreCodes: number[] = [];
    let undo: string | undefined;
    let compactedRuns = 0;
    while (!finished) {
      if (undo) {
        restoreCodes.push(
          (await compactThread(["restore", THREAD, ...store.scriptArgs, "--checkpoint", undo, "--json"])).code,
        );
        undo = undefined;
        continue;
      }
      // Below the wrappers' limit (1,200), so the script has something to compact between their compactions.
      const run = await compactThread(["compact", THREAD, ...store.scriptArgs, "--limit", "900", "--json"]);
      scriptCodes.push(run.code);
      const report =
        run.code === 0
          ? (JSON.parse(run.stdout) as { report?: { status: string; previousCheckpointId: string } }).report
          : undefined;
      if (report?.status === "compacted" && compactedRuns++ % 3 === 0) undo = report.previousCheckpointId;
    }
    const results = await Promise.all(writers);
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    const stats = results.map(
      (result) =>
        JSON.parse(result.stdout.trim().split("\n").at(-1)!) as {
          compactions: number;
          rebased: number;
          conflicts: number;
          compactionErrors: string[];
        },
    );
    expect(
      scriptCodes.every((code) => [0, 6, 9].includes(code)),
      String(scriptCodes),
    ).toBe(true);
    expect(
      restoreCodes.every((code) => [0, 6, 9].includes(code)),
      String(restoreCodes),
    ).toBe(true);

    const saver = await store.saver();
    const config = { configurable: { thread_id: THREAD } };
    const audit = await auditThread(saver, config);
    expect(audit.problems).toEqual([]);
    // Every user message sent was stored (so the audit above covers it), and the head holds none twice.
    const head = (await saver.getTuple(config))!.checkpoint.channel_values.messages as BaseMessage[];
    const headIds = head.map((message) => message.id);
    expect(new Set(headIds).size).toBe(headIds.length);
    const sent = ["seed", "a", "b"].flatMap((prefix) =>
      Array.from({ length: TURNS }, (_, index) => `${prefix}-${index}`),
    );
    const seen = new Set(headIds);
    for await (const tuple of saver.list(config)) {
      for (const message of (tuple.checkpoint.channel_values.messages as BaseMessage[]) ?? []) {
        if (BaseMessage.isInstance(message) && sent.includes(message.id ?? "")) seen.add(message.id!);
      }
    }
    expect(sent.filter((id) => !seen.has(id))).toEqual([]);
    // The index answers exactly the messages that left the head (its entries of messages back in the head — a
    // restore, a write superseded by a turn — are left out), and one more write of the library changes nothing.
    const ever = new Set<string>();
    for await (const tuple of saver.list({ configurable: { thread_id: THREAD, checkpoint_ns: "" } })) {
      for (const message of (tuple.checkpoint.channel_values.messages as BaseMessage[]) ?? [])
        if (!getSummaryProvenance(message)) ever.add(message.id!);
    }
    const indexed = async () => (await entriesOutOfHead(saver, THREAD)).map((entry) => entry.messageId).sort();
    const left = (head: Set<string | undefined>) => [...ever].filter((id) => !head.has(id)).sort();
    expect(await indexed()).toEqual(left(new Set(headIds)));
    const backInHead = (await threadStoreFor(saver).recall.entries(THREAD)).filter((entry) =>
      headIds.includes(entry.messageId),
    ).length;
    const headId = (await saver.getTuple(config))!.checkpoint.id;
    const rewrite = await compactThread(["restore", THREAD, ...store.scriptArgs, "--checkpoint", headId, "--json"]);
    expect(rewrite.code, rewrite.stderr).toBe(0);
    const after = new Set(
      ((await saver.getTuple(config))!.checkpoint.channel_values.messages as BaseMessage[]).map(
        (message) => message.id,
      ),
    );
    expect(await indexed()).toEqual(left(after));
    const wrapperCompactions = stats.reduce((sum, stat) => sum + stat.compactions, 0);
    const scriptCompactions = compactedRuns;
    // How many compactions a race holds depends on how turns and script runs interleave, which moves with the
    // machine's load (a fresh-clone CI beside another saw 2 with 5 turns per process); that the race compacted, and
    // that its summaries were rebased onto turns that landed meanwhile, does not.
    expect(wrapperCompactions + scriptCompactions).toBeGreaterThan(0);
    // Every summary of the turn processes is applied after the thread grew: rebased onto the turns that landed
    // meanwhile, or discarded (conflict) when another compaction changed its prefix first — and the audit above
    // found nothing lost either way.
    const rebases = stats.reduce((sum, stat) => sum + stat.rebased, 0);
    expect(rebases).toBeGreaterThan(0);
    expect(audit.covered).toBeGreaterThan(0);
    recordFigures("race", {
      [`${kind}:turns`]: TURNS * 3,
      [`${kind}:wrapperCompactions`]: wrapperCompactions,
      [`${kind}:wrapperRebased`]: rebases,
      [`${kind}:wrapperConflicts`]: stats.reduce((sum, stat) => sum + stat.conflicts, 0),
      [`${kind}:scriptRuns`]: scriptCodes.length,
      [`${kind}:scriptCompactions`]: scriptCompactions,
      [`${kind}:scriptConflictsOrBusy`]: scriptCodes.filter((code) => code !== 0).length,
      [`${kind}:scriptRestoreRuns`]: restoreCodes.length,
      [`${kind}:scriptRestores`]: restoreCodes.filter((code) => code === 0).length,
      [`${kind}:indexBackInHead`]: backInHead,
      [`${kind}:messagesEver`]: audit.messagesEver,
      [`${kind}:messagesLost`]: audit.problems.filter((problem) => problem.code === "LOST_MESSAGE").length,
    });
    await store.close(saver);
  }, 900_000);
  it(`the script pruning in a loop beside a turn process and its compactions deletes no head and loses nothing`, async () => {
    const store = await open();
    const schema = store.schema;
    const thread = "pruned-race";
    const lock = join(dir, `${kind}-prune.lock`);
    const child = (prefix: string) =>
      runTs(
        "test/support/race-turns.ts",
        [...store.childArgs, thread, String(TURNS * 2), prefix, lock, ...(schema ? [schema] : [])],
        {},
        600_000,
      );
    const writer = child("p");
    let finished = false;
    void writer.then(() => (finished = true));
    const pruneCodes: number[] = [];
    let pruned = 0;
    while (!finished) {
      const run = await compactThread(["prune", thread, ...store.scriptArgs, "--keep", "2", "--json"]);
      pruneCodes.push(run.code);
      if (
        run.code === 0 &&
        (JSON.parse(run.stdout) as { threads: Array<{ status: string }> }).threads[0]!.status === "pruned"
      )
        pruned++;
    }
    // Every turn of the writer ran on a checkpoint that was still there (its turns would have failed otherwise).
    const result = await writer;
    expect(result.code, result.stderr).toBe(0);
    // Before its first turn the thread does not exist (exit 5); after, a prune ends in one of its outcomes (exit 0).
    expect(
      pruneCodes.every((code) => [0, 5].includes(code)),
      String(pruneCodes),
    ).toBe(true);
    const final = await compactThread(["prune", thread, ...store.scriptArgs, "--keep", "1", "--json"]);
    expect(final.code, final.stderr).toBe(0);
    const saver = await store.saver();
    const config = { configurable: { thread_id: thread } };
    const audit = await auditThread(saver, config);
    expect(audit.problems).toEqual([]);
    // Every user message sent is in the head or in the transcript, once.
    const ids = (await readTranscript(saver, config, { limit: 10_000 })).messages.map((line) => line.message.id);
    expect(new Set(ids).size).toBe(ids.length);
    const sent = Array.from({ length: TURNS * 2 }, (_, index) => `p-${index}`);
    expect(sent.filter((id) => !ids.includes(id))).toEqual([]);
    recordFigures("race", { [`${kind}:pruneRuns`]: pruneCodes.length, [`${kind}:prunesLanded`]: pruned });
    await store.close(saver);
  }, 600_000);
});
