/**
 * MessagesDeltaValue threads (a DeltaChannel stores each message once, plus snapshots): the wrapper compacts them,
 * the next turn's model sees the summary, nothing is lost; the script lists, inspects, compacts, searches and
 * restores them without the graph.
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { MessagesDeltaValue, START, StateGraph, StateSchema } from "@langchain/langgraph";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditThread } from "../../src/engine/audit.js";
import { isSummaryMessage } from "../../src/messages/summary-message.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { threadStoreFor } from "../../src/store/thread-store.js";
import { runScript } from "../support/run-script.js";

const State = new StateSchema({ messages: MessagesDeltaValue });
let dir: string;
let path: string;

/** The messages each model call received, to check what the model saw. */
const seen: BaseMessage[][] = [];

function deltaGraph(saver: SqliteSaver) {
  return new StateGraph(State)
    .addNode("agent", async (state: { messages: BaseMessage[] }) => {
      seen.push([...state.messages]);
      const turn = String(state.messages.at(-1)?.content ?? "").match(/^Turn (\d+)/)?.[1] ?? "?";
      return {
        messages: [
          new AIMessage(
            `Turn ${turn} noted: pallet PL-${turn}77 goes to bay ${Number(turn) % 9}, checked by inspector Ilse Varga on shift ${turn}.`,
          ),
        ],
      };
    })
    .addEdge(START, "agent")
    .compile({ checkpointer: saver });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "compaction-delta-"));
  path = join(dir, "delta.sqlite");
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("a MessagesDeltaValue graph", () => {
  it("the wrapper compacts it over 40 turns: the next turn's model sees the summary, nothing is lost", async () => {
    const saver = SqliteSaver.fromConnString(path);
    const landed: string[] = [];
    const supervisor = new CompactingSupervisor(deltaGraph(saver), {
      trigger: { tokens: 1_200 },
      background: false,
      env: {},
      onCompaction: (report) => void (report.status === "compacted" && landed.push(report.newCheckpointId)),
    });
    const config = { configurable: { thread_id: "delta" } };
    for (let turn = 0; turn < 40; turn++) {
      await supervisor.invoke(
        { messages: [new HumanMessage(`Turn ${turn}: where does pallet PL-${turn}77 go?`)] },
        config,
      );
    }
    expect(landed.length).toBeGreaterThan(1);
    // The head is still stored as deltas, and the graph itself reads the compacted history.
    const head = (await threadStoreFor(saver).readHead("delta"))!;
    expect(head.storage).toBe("delta");
    const state = await supervisor.getState(config);
    expect((state.values.messages as BaseMessage[]).map((message) => message.id)).toEqual(
      head.messages.map((message) => message.id),
    );
    // A turn after a compaction landed: its model call starts from [summary, recent messages].
    const after = seen.findLast((messages) => isSummaryMessage(messages[0]));
    expect(after).toBeDefined();
    expect(seen.at(-1)!.length).toBeLessThan(40);
    const audit = await auditThread(saver, config);
    expect(audit.problems).toEqual([]);
    expect(audit.inHead + audit.covered).toBe(audit.messagesEver);
    expect(audit.messagesEver).toBe(80);
    saver.db.close();
  });

  it("the script lists, inspects, compacts, searches and restores it", async () => {
    const saver = SqliteSaver.fromConnString(path);
    const graph = deltaGraph(saver);
    for (let turn = 0; turn < 30; turn++)
      await graph.invoke(
        { messages: [new HumanMessage(`Turn ${turn}: where does pallet PL-${turn}77 go?`)] },
        { configurable: { thread_id: "by-script" } },
      );
    saver.db.close();
    const db = ["--db", path];

    const listed = await runScript(["list", ...db, "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    const row = JSON.parse(listed.stdout).threads.find(
      (thread: { threadId: string }) => thread.threadId === "by-script",
    );
    expect(row.messages).toBe(60);
    expect(row.idle).toBe(true);

    const inspected = JSON.parse(
      (await runScript(["inspect", "by-script", ...db, "--json", "--limit", "1200"])).stdout,
    );
    expect(inspected.messages.length).toBe(60);
    expect(inspected.compactable).toBe(true);

    const compacted = await runScript(["compact", "by-script", ...db, "--limit", "1200", "--json"]);
    expect(compacted.code, compacted.stderr).toBe(0);
    const report = JSON.parse(compacted.stdout).report;
    expect(report.status).toBe("compacted");

    const searched = await runScript(["search", "by-script", "pallet", "PL-177", ...db, "--json"]);
    expect(searched.code, searched.stderr).toBe(0);
    expect(JSON.parse(searched.stdout).hits.some((hit: { text: string }) => hit.text.includes("PL-177"))).toBe(true);

    const history = JSON.parse((await runScript(["history", "by-script", ...db, "--json"])).stdout);
    expect(history.checkpoints.at(-1).messages).toBeLessThan(60);
    expect(
      history.checkpoints.find(
        (checkpoint: { checkpointId: string }) => checkpoint.checkpointId === report.previousCheckpointId,
      ).messages,
    ).toBe(60);

    const restored = await runScript([
      "restore",
      "by-script",
      ...db,
      "--checkpoint",
      report.previousCheckpointId,
      "--json",
    ]);
    expect(restored.code, restored.stderr).toBe(0);
    const reader = SqliteSaver.fromConnString(path);
    const head = (await threadStoreFor(reader).readHead("by-script"))!;
    expect(head.messages.length).toBe(60);
    expect(head.messages.some((message) => isSummaryMessage(message))).toBe(false);
    // The graph reads the restored thread too, and its next turn appends to it.
    await deltaGraph(reader).invoke(
      { messages: [new HumanMessage("Turn 30: and pallet PL-3077?")] },
      { configurable: { thread_id: "by-script" } },
    );
    expect((await threadStoreFor(reader).readHead("by-script"))!.messages.length).toBe(62);
    const audit = await auditThread(reader, { configurable: { thread_id: "by-script" } });
    expect(audit.problems).toEqual([]);
    reader.db.close();
  });
});
