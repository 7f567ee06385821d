/**
 * Pruning: a thread's checkpoints the transcript makes redundant are deleted — the head and the newest `keep` stay —
 * and nothing is lost: readTranscript still returns every message ever sent, in order, auditThread finds no problem,
 * and the next turn works. On MemorySaver, a SQLite file and Postgres; through the wrapper's keepCheckpoints, the
 * HistoryManager and the script; with messages a graph removed itself (written to the transcript before the delete);
 * and bad input refused with nothing deleted.
 */
import { AIMessage, HumanMessage, RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import { MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import {
  BaseCheckpointSaver,
  MemorySaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointTuple,
  type PendingWrite,
} from "@langchain/langgraph-checkpoint";
import type { RunnableConfig } from "@langchain/core/runnables";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { auditThread } from "../../src/engine/audit.js";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { pruneThread } from "../../src/engine/prune.js";
import { getSummaryProvenance } from "../../src/messages/summary-message.js";
import { readTranscript } from "../../src/recall/transcript.js";
import { reindexThread } from "../../src/recall/reindex.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { threadStoreFor } from "../../src/store/thread-store.js";
import { runScript } from "../support/run-script.js";
import { createStore, SAVER_KINDS, type TestStore } from "../support/savers.js";
import { createTeam } from "../support/team.js";

const config = (thread: string) => ({ configurable: { thread_id: thread } });

/** Messages in the order they first appeared in the turns' results (what the application saw), summaries left out. */
function sentSoFar(seen: Map<string, BaseMessage>, messages: readonly BaseMessage[]): void {
  for (const message of messages)
    if (message.id && !getSummaryProvenance(message) && !seen.has(message.id)) seen.set(message.id, message);
}

async function transcriptIds(saver: BaseCheckpointSaver, thread: string): Promise<Array<string | undefined>> {
  const page = await readTranscript(saver, config(thread), { limit: 10_000 });
  return page.messages.filter((line) => line.source !== "summary").map((line) => line.message.id);
}

async function rootCheckpoints(saver: BaseCheckpointSaver, thread: string): Promise<number> {
  return (await threadStoreFor(saver).listCheckpoints(thread)).length;
}

for (const kind of SAVER_KINDS) {
  describe(`pruning on ${kind}`, () => {
    let store: TestStore;
    // The wrappers a test made: closed when it ends, passed or failed, so no prune of theirs outlives the store.
    const wrappers: CompactingSupervisor[] = [];
    beforeAll(async () => void (store = await createStore(kind)));
    afterEach(async () => void (await Promise.all(wrappers.splice(0).map((wrapper) => wrapper.close()))));
    afterAll(async () => await store.close());

    it("the wrapper's keepCheckpoints bounds the checkpoints and loses no message", async () => {
      const team = createTeam(store.saver);
      let compactions = 0;
      const errors: unknown[] = [];
      const supervisor = new CompactingSupervisor(team, {
        trigger: { tokens: 1_200 },
        background: false,
        keepCheckpoints: 3,
        env: {},
        onCompaction: (report) => void (report.status === "compacted" && compactions++),
        onCompactionError: (error) => void errors.push(error),
      });
      wrappers.push(supervisor);
      const seen = new Map<string, BaseMessage>();
      const after: number[] = [];
      for (let turn = 0; turn < 10; turn++) {
        const result = await supervisor.invoke(
          {
            messages: [
              new HumanMessage({
                id: `ask-${turn}`,
                content: `What are the Stripe fees for order ord_${turn}, and who approved the refund?`,
              }),
            ],
          },
          config("kept"),
        );
        sentSoFar(seen, result.messages as BaseMessage[]);
        // background: false — the turn's prune is part of the turn: the store holds the newest three after each one.
        after.push(await rootCheckpoints(store.saver, "kept"));
      }
      await supervisor.flush();
      expect(compactions).toBeGreaterThan(1);
      expect(errors).toEqual([]);
      expect(after).toEqual(after.map(() => 3));
      expect(await transcriptIds(store.saver, "kept")).toEqual([...seen.keys()]);
      const audit = await auditThread(store.saver, config("kept"));
      expect(audit.problems, JSON.stringify(audit.problems.slice(0, 2))).toEqual([]);
      // A reindex after the prune keeps what only the transcript holds.
      await reindexThread(store.saver, config("kept"));
      expect(await transcriptIds(store.saver, "kept")).toEqual([...seen.keys()]);
      // The next turn works on the pruned thread.
      const next = await supervisor.invoke(
        { messages: [new HumanMessage({ id: "ask-next", content: "And ord_3?" })] },
        config("kept"),
      );
      expect((next.messages as BaseMessage[]).at(-1)!.getType()).toBe("ai");
    });

    it("with background compaction the prune runs off the turn, and flush() waits for it", async () => {
      const team = createTeam(store.saver);
      let compactions = 0;
      const errors: unknown[] = [];
      const supervisor = new CompactingSupervisor(team, {
        trigger: { tokens: 1_200 },
        keepCheckpoints: 2,
        env: {},
        onCompaction: (report) => void (report.status === "compacted" && compactions++),
        onCompactionError: (error) => void errors.push(error),
      });
      wrappers.push(supervisor);
      const seen = new Map<string, BaseMessage>();
      for (let turn = 0; turn < 7; turn++) {
        const result = await supervisor.invoke(
          {
            messages: [
              new HumanMessage({
                id: `bg-${turn}`,
                content: `Where is parcel pk_${turn} now, and when does it reach the depot in Leeds?`,
              }),
            ],
          },
          config("kept-bg"),
        );
        sentSoFar(seen, result.messages as BaseMessage[]);
      }
      await supervisor.flush();
      expect(compactions).toBeGreaterThan(0);
      expect(errors).toEqual([]);
      expect(await rootCheckpoints(store.saver, "kept-bg")).toBe(2);
      expect(await transcriptIds(store.saver, "kept-bg")).toEqual([...seen.keys()]);
      const audit = await auditThread(store.saver, config("kept-bg"));
      expect(audit.problems, JSON.stringify(audit.problems.slice(0, 2))).toEqual([]);
    });

    it("messages a graph removed itself are written to the transcript before their checkpoints go", async () => {
      const graph = new StateGraph(MessagesAnnotation)
        .addNode("agent", async (state) => {
          const oldest = state.messages[0];
          const removal = state.messages.length > 4 && oldest?.id ? [new RemoveMessage({ id: oldest.id })] : [];
          return {
            messages: [
              ...removal,
              new AIMessage({
                id: `reply-${state.messages.length}-${Date.now()}`,
                content: `Noted: ${String(state.messages.at(-1)?.content)}`,
              }),
            ],
          };
        })
        .addEdge(START, "agent")
        .compile({ checkpointer: store.saver });
      const seen = new Map<string, BaseMessage>();
      for (let turn = 0; turn < 8; turn++) {
        const result = await graph.invoke(
          {
            messages: [
              new HumanMessage({ id: `note-${turn}`, content: `note ${turn}: crate QX${turn} in aisle ${turn}` }),
            ],
          },
          config("self-removing"),
        );
        sentSoFar(seen, result.messages as BaseMessage[]);
      }
      // The first messages were removed by the graph, not by this library: only old checkpoints hold them.
      const report = await pruneThread(store.saver, config("self-removing"), { keep: 1 });
      expect(report.status).toBe("pruned");
      expect(report.backfilled).toBeGreaterThan(0);
      expect(await rootCheckpoints(store.saver, "self-removing")).toBe(1);
      const ids = await transcriptIds(store.saver, "self-removing");
      for (const id of ["note-0", "note-1", "note-2"]) expect(ids).toContain(id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBeGreaterThanOrEqual(seen.size);
    });

    it("a dry run changes nothing; a second prune has nothing to do", async () => {
      const manager = new HistoryManager({ checkpointer: store.saver, trigger: { tokens: 1_200 }, env: {} });
      const before = await rootCheckpoints(store.saver, "kept");
      const dry = await manager.pruneThread(config("kept"), { keep: 1, dryRun: true });
      expect(dry.status).toBe("dry-run");
      expect(dry.removed).toBe(before - dry.kept);
      expect(await rootCheckpoints(store.saver, "kept")).toBe(before);
      expect((await manager.pruneThread(config("kept"), { keep: 1 })).status).toBe("pruned");
      expect((await manager.pruneThread(config("kept"), { keep: 1 })).status).toBe("nothing");
    });
  });
}

/** A saver this library knows nothing about: it delegates to a MemorySaver it keeps private. */
class OpaqueSaver extends BaseCheckpointSaver {
  readonly #inner = new MemorySaver();
  getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    return this.#inner.getTuple(config);
  }
  list(config: RunnableConfig, options?: Parameters<MemorySaver["list"]>[1]) {
    return this.#inner.list(config, options);
  }
  put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, _versions: ChannelVersions) {
    return this.#inner.put(config, checkpoint, metadata);
  }
  putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string) {
    return this.#inner.putWrites(config, writes, taskId);
  }
  deleteThread(threadId: string) {
    return this.#inner.deleteThread(threadId);
  }
}

describe("pruning refuses bad input, deleting nothing", () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await createStore("sqlite");
    const team = createTeam(store.saver);
    for (let turn = 0; turn < 3; turn++)
      await team.invoke({ messages: [new HumanMessage(`Stripe fees for ord_${turn}?`)] }, config("t"));
  });
  afterAll(async () => await store.close());

  it("the API: a bad keep, an unknown thread, a saver it cannot delete from", async () => {
    const before = await rootCheckpoints(store.saver, "t");
    for (const keep of [0, -1, 1.5, Number.NaN])
      await expect(pruneThread(store.saver, config("t"), { keep })).rejects.toMatchObject({
        code: "INVALID_ARGUMENT",
        parameter: "keep",
      });
    await expect(pruneThread(store.saver, config("nobody"))).rejects.toMatchObject({ code: "THREAD_NOT_FOUND" });
    await expect(pruneThread(new OpaqueSaver(), config("t"))).rejects.toMatchObject({
      code: "UNSUPPORTED",
      message: expect.stringMatching(/OpaqueSaver.*Nothing was deleted/),
    });
    expect(() => new HistoryManager({ checkpointer: store.saver, keepCheckpoints: 0 })).toThrow(
      /keepCheckpoints must be an integer >= 1/,
    );
    expect(await rootCheckpoints(store.saver, "t")).toBe(before);
  });

  it("the script: one line, a distinct exit code, nothing deleted", async () => {
    const before = await rootCheckpoints(store.saver, "t");
    const db = ["--db", store.location.path!];
    for (const [args, code, message] of [
      [["prune", "t", ...db, "--keep", "0"], 2, /--keep must be an integer >= 1 \(the head is always kept\); got "0"/],
      [["prune", "t", ...db, "--keep=-2"], 2, /--keep must be/],
      [["prune", "t", ...db, "--keep", "two"], 2, /got "two"/],
      [["prune", "nobody", ...db], 5, /nobody/],
      [["prune", ...db], 2, /prune needs a thread id or --all/],
      [["prune", "t", "--all", ...db], 2, /not both/],
    ] as const) {
      const result = await runScript([...args]);
      expect(result.code, result.stderr).toBe(code);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(result.stderr).toMatch(message);
    }
    expect(await rootCheckpoints(await store.reopen(), "t")).toBe(before);
    const oldest = (
      JSON.parse((await runScript(["history", "t", ...db, "--json"])).stdout) as {
        checkpoints: Array<{ checkpointId: string }>;
      }
    ).checkpoints[0]!.checkpointId;
    const pruned = await runScript(["prune", "--all", ...db, "--keep", "2", "--json"]);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(JSON.parse(pruned.stdout).threads[0]).toMatchObject({ threadId: "t", status: "pruned", kept: 2 });
    expect(await rootCheckpoints(await store.reopen(), "t")).toBe(2);
    // A checkpoint history listed before the prune: restore refuses it with the reason, writing nothing.
    const restore = await runScript(["restore", "t", ...db, "--checkpoint", oldest]);
    expect(restore.code).toBe(8);
    expect(restore.stderr).toMatch(/or pruned \(history lists the checkpoints kept/);
    expect(await rootCheckpoints(await store.reopen(), "t")).toBe(2);
  });
});

describe("the script's prune and the SQLite file", () => {
  let store: TestStore;
  beforeAll(async () => void (store = await createStore("sqlite")));
  afterAll(async () => await store.close());

  it("says the file keeps its size and how to reclaim it; --vacuum shrinks it", async () => {
    const team = createTeam(store.saver);
    for (let turn = 0; turn < 12; turn++)
      await team.invoke(
        {
          messages: [
            new HumanMessage({ id: `vac-${turn}`, content: `What are the Stripe fees for order ord_${turn}?` }),
          ],
        },
        config("vacuum"),
      );
    const db = ["--db", store.location.path!];
    const pruned = await runScript(["prune", "vacuum", ...db, "--keep", "2"]);
    expect(pruned.code, pruned.stderr).toBe(0);
    const free =
      /file: ([\d,]+) bytes, ([\d,]+) of them free pages SQLite reuses for later writes; --vacuum gives them back to the disk/.exec(
        pruned.stdout,
      );
    expect(free, pruned.stdout).not.toBeNull();
    const bytes = (text: string) => Number(text.replace(/,/g, ""));
    expect(bytes(free![2]!)).toBeGreaterThan(0);
    const vacuumed = await runScript(["prune", "vacuum", ...db, "--keep", "2", "--vacuum", "--json"]);
    expect(vacuumed.code, vacuumed.stderr).toBe(0);
    const { file } = JSON.parse(vacuumed.stdout) as {
      file: { bytesBefore: number; bytes: number; freeBytes: number; vacuumed: boolean };
    };
    expect(file).toMatchObject({ vacuumed: true, freeBytes: 0 });
    expect(file.bytes).toBeLessThan(file.bytesBefore);
    expect(file.bytesBefore - file.bytes).toBeGreaterThanOrEqual(bytes(free![2]!) * 0.9);
  });
});
