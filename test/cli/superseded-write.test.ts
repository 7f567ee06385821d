/**
 * A write superseded by a turn: the turn reads the head, the script compacts (its compare-and-swap sees that same
 * head and lands), then the turn writes its checkpoints as children of the head it read. The order is forced by
 * holding the turn at its first write (a saver whose put waits for the test), not by timing. Nothing is lost; the
 * script's write is marked superseded by `history`; the index answers exactly the messages out of the head
 * throughout (the entries of messages the turn brought back are kept, and left out), and reindex rebuilds it.
 */
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import type { BaseMessage } from "@langchain/core/messages";
import { HumanMessage } from "@langchain/core/messages";
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { auditThread, reindexThread } from "../../src/index.js";
import { runScriptInProcess } from "../support/in-process-script.js";
import { getSummaryProvenance } from "../../src/messages/summary-message.js";
import { threadStoreFor } from "../../src/store/thread-store.js";
import { stillInLine } from "../../src/store/lineage.js";
import { entriesOutOfHead } from "../support/recall-view.js";
import { createTestAgent, seedThread } from "../support/agents.js";

/** A SqliteSaver whose next put waits until the test releases it (once armed). */
class GatedSaver extends SqliteSaver {
  private gate?: { reached: () => void; released: Promise<void> };

  /** Resolves once a put is held; `release()` lets it through. */
  arm(): { reached: Promise<void>; release: () => void } {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const reached = new Promise<void>((resolve) => (this.gate = { reached: resolve, released }));
    return { reached, release };
  }

  override async put(...args: Parameters<SqliteSaver["put"]>): ReturnType<SqliteSaver["put"]> {
    const gate = this.gate;
    if (gate) {
      this.gate = undefined;
      gate.reached();
      await gate.released;
    }
    return super.put(...args);
  }
}

const dir = mkdtempSync(join(tmpdir(), "compaction-superseded-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const script = (argv: string[]) => runScriptInProcess(argv);

const THREAD = "superseded";
const config = { configurable: { thread_id: THREAD } };

async function idsOf(saver: SqliteSaver): Promise<{ ever: Set<string>; head: Set<string> }> {
  const ever = new Set<string>();
  for await (const tuple of saver.list(config)) {
    for (const message of (tuple.checkpoint.channel_values.messages as BaseMessage[]) ?? [])
      if (!getSummaryProvenance(message)) ever.add(message.id!);
  }
  const head = new Set(
    ((await saver.getTuple(config))!.checkpoint.channel_values.messages as BaseMessage[]).map((message) => message.id!),
  );
  return { ever, head };
}

describe("a compaction superseded by a turn that read the thread before it", () => {
  it("loses nothing, is marked superseded by history, and the index answers exactly what is out of the head", async () => {
    const path = join(dir, "store.sqlite");
    const saver = new GatedSaver(new Database(path));
    const { agent } = createTestAgent(saver);
    await seedThread(agent, THREAD, 14);

    const gate = saver.arm();
    const turn = agent.invoke(
      { messages: [new HumanMessage({ id: "late-turn", content: "what was the invoice total for ord_1003?" })] },
      config,
    );
    await gate.reached; // the turn has read the head and waits at its first write
    const compacted = await script(["compact", THREAD, "--limit", "400", "--db", path, "--json"]);
    expect(compacted.code, compacted.stderr).toBe(0);
    const written = JSON.parse(compacted.stdout).report.newCheckpointId as string;
    expect(await stillInLine(saver, THREAD, written)).toBe(true);
    gate.release();
    await turn;

    // The turn's checkpoints descend from the head it read: the compaction is out of the head's line.
    expect(await stillInLine(saver, THREAD, written)).toBe(false);
    const history = await script(["history", THREAD, "--db", path, "--json"]);
    const marked = (
      JSON.parse(history.stdout).checkpoints as Array<{ checkpointId: string; superseded: boolean }>
    ).filter((checkpoint) => checkpoint.superseded);
    expect(marked.map((checkpoint) => checkpoint.checkpointId)).toEqual([written]);
    expect((await script(["history", THREAD, "--db", path])).stdout).toContain("1 write(s) of this library superseded");
    expect((await auditThread(saver, config)).problems).toEqual([]);

    // The index keeps the entries of the messages the turn brought back into the head, and answers without them:
    // exactly what is out of the head, right after the superseding turn, after the next write and after reindex.
    const backend = threadStoreFor(saver).recall;
    const answered = async () => (await entriesOutOfHead(saver, THREAD)).map((entry) => entry.messageId).sort();
    const exact = async () => {
      const { ever, head } = await idsOf(saver);
      return [...ever].filter((id) => !head.has(id)).sort();
    };
    const { head: headNow } = await idsOf(saver);
    expect((await backend.entries(THREAD)).filter((entry) => headNow.has(entry.messageId)).length).toBeGreaterThan(0);
    expect(await answered()).toEqual(await exact());
    const again = await script(["compact", THREAD, "--limit", "400", "--db", path, "--json"]);
    expect(again.code, again.stderr).toBe(0);
    expect(await answered()).toEqual(await exact());
    const live = await backend.entries(THREAD);
    await reindexThread(saver, config);
    expect(await backend.entries(THREAD)).toEqual(live);
    saver.db.close();
  });
});
