/**
 * readTranscript: every message ever stored in a thread, in order, content-identical — the compacted ones from the
 * transcript (the recall index's stored messages), then the head — after compactions (running summaries of
 * summaries), edits (cleared tool results, archived outputs), pins, the application's removals, restores and prunes,
 * over fuzzed histories (parallel tool calls, handoffs); on
 * MemorySaver, a SQLite file and Postgres; paged; and for entries written before the transcript existed.
 */
import { HumanMessage, RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import { Annotation, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { InMemoryStore, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { getSummaryProvenance } from "../../src/messages/summary-message.js";
import { readTranscript, type TranscriptMessage } from "../../src/recall/transcript.js";
import { reindexThread } from "../../src/recall/reindex.js";
import { pinMessage } from "../../src/messages/pins.js";
import { pruneThread } from "../../src/engine/prune.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import { clearToolResults } from "../../src/strategies/clear-tool-results.js";
import { ToolOutputArchive } from "../../src/archive/archive.js";
import { compactWithStrategy } from "../../src/strategies/strategy-compaction.js";
import { threadStoreFor } from "../../src/store/thread-store.js";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import { buildHistory, historyShape } from "../support/arbitrary-history.js";
import { FUZZ_SEED, size } from "../support/reliability.js";
import { createStore, type TestStore } from "../support/savers.js";
import { createTeam } from "../support/team.js";
import { runScript } from "../support/run-script.js";

const RUNS = size("TRANSCRIPT_FUZZ_RUNS", 40, 400);

/** What a message is, for "content-identical": its class, id, name, content, tool calls and metadata. */
function identity(message: BaseMessage) {
  const fields = message.toDict().data as unknown as Record<string, unknown>;
  return {
    type: message.getType(),
    id: message.id,
    name: message.name,
    content: message.content,
    tool_calls: (fields.tool_calls as unknown[] | undefined) ?? [],
    tool_call_id: fields.tool_call_id,
    additional_kwargs: message.additional_kwargs,
  };
}

/** Every message ever stored in the thread's root namespace, by first appearance, summaries left out. */
async function everMessages(saver: BaseCheckpointSaver, threadId: string): Promise<BaseMessage[]> {
  const checkpoints = (await threadStoreFor(saver).listCheckpoints(threadId)).reverse();
  const seen = new Map<string, BaseMessage>();
  for (const { messages } of checkpoints) {
    for (const message of messages) {
      if (getSummaryProvenance(message) || !message.id || seen.has(message.id)) continue;
      // The original: an edit (a cleared tool result) comes later under the same id, never first.
      seen.set(message.id, message);
    }
  }
  return [...seen.values()];
}

async function wholeTranscript(
  saver: BaseCheckpointSaver,
  threadId: string,
  limit?: number,
): Promise<TranscriptMessage[]> {
  const all: TranscriptMessage[] = [];
  let after: number | undefined;
  for (;;) {
    const page = await readTranscript(
      saver,
      { configurable: { thread_id: threadId } },
      { ...(after === undefined ? {} : { after }), ...(limit ? { limit } : {}) },
    );
    all.push(...page.messages);
    if (page.next === undefined) return all;
    after = page.next;
  }
}

function expectEveryMessage(transcript: TranscriptMessage[], ever: BaseMessage[]): void {
  const conversation = transcript.filter((line) => line.source !== "summary");
  expect(conversation.map((line) => line.message.id)).toEqual(ever.map((message) => message.id));
  expect(conversation.map((line) => identity(line.message))).toEqual(ever.map(identity));
  expect(transcript.map((line) => line.position)).toEqual(transcript.map((_, index) => index));
  expect(transcript.some((line) => line.partial)).toBe(false);
}

describe("readTranscript", () => {
  it(
    `returns every message ever stored, in order, content-identical, pruned or not (${RUNS} fuzzed threads, seed ${FUZZ_SEED})`,
    async () => {
      const State = Annotation.Root({ ...MessagesAnnotation.spec });
      let compactions = 0;
      let edits = 0;
      let prunes = 0;
      let archives = 0;
      let removals = 0;
      let restores = 0;
      let restoredTwice = 0;
      let restoredAndEdited = 0;
      await fc.assert(
        fc.asyncProperty(
          historyShape,
          fc.array(
            fc.tuple(
              fc.double({ min: 0.2, max: 0.8, noNaN: true }),
              historyShape,
              fc.constantFrom("none", "clear", "archive"),
              fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
              // The application's edits: an exchange removed (RemoveMessage, then a prune), or a restore to an earlier
              // checkpoint (what `restore` writes), at a drawn place.
              fc.constantFrom("none", "remove", "restore", "restore"),
              fc.integer({ min: 0, max: 999 }).map((n) => n / 1_000),
            ),
            { minLength: 2, maxLength: 5 },
          ),
          fc.boolean(),
          async (shape, rounds, pinFirst) => {
            const saver = new MemorySaver();
            const graph = new StateGraph(State)
              .addNode("agent", async () => ({}))
              .addEdge(START, "agent")
              .addEdge("agent", END)
              .compile({ checkpointer: saver });
            const config = { configurable: { thread_id: "t" } };
            // The first human message pinned (pinMessage), or none.
            const built = buildHistory(shape, "s");
            const firstAt = built.findIndex((message) => message.getType() === "human");
            await graph.updateState(
              config,
              {
                messages: built.map((message, index) =>
                  pinFirst && index === firstAt ? pinMessage(message) : message,
                ),
              },
              "agent",
            );
            // Its id, as the reducer gave it.
            const first = (await graph.getState(config)).values.messages.find(
              (message: BaseMessage) => message.getType() === "human",
            )?.id;
            const manager = new HistoryManager({
              checkpointer: saver,
              summarizer: new ExtractiveSummarizer(),
              env: {},
            });
            const editor = new HistoryManager({
              checkpointer: saver,
              summarizer: new ExtractiveSummarizer(),
              trigger: { tokens: 100 },
              env: {},
            });
            // Every message ever stored: read before each prune deletes checkpoints, merged by first appearance.
            const ever = new Map<string, BaseMessage>();
            const remember = async () => {
              for (const message of await everMessages(saver, "t"))
                if (!ever.has(message.id!)) ever.set(message.id!, message);
            };
            const archive = new ToolOutputArchive({
              store: new InMemoryStore(),
              thresholdTokens: 1,
              headChars: 4,
              tailChars: 4,
              keep: 0,
            });
            let restored = 0;
            let edited = false;
            for (const [index, [compactionRatio, next, edit, drawnKeep, change, where]] of rounds.entries()) {
              let keep = drawnKeep;
              if (edit !== "none") edited = true;
              if (change === "remove") {
                // A whole exchange (a human message up to the next one), never the pinned one: the head stays valid.
                const head = (await manager.store.readHead("t"))!.messages;
                const humans = head.flatMap((message, at) =>
                  message.getType() === "human" && message.id !== first ? [at] : [],
                );
                if (humans.length > 0) {
                  const start = humans[Math.floor(where * humans.length)]!;
                  const end = head.findIndex((message, at) => at > start && message.getType() === "human");
                  const exchange = head.slice(start, end < 0 ? head.length : end);
                  await graph.updateState(
                    config,
                    { messages: exchange.map((message) => new RemoveMessage({ id: message.id! })) },
                    "agent",
                  );
                  removals++;
                  // A removed message stays in the checkpoints before the removal (the application's, not a loss) and enters
                  // the transcript when a prune deletes the last of them: prune to the head.
                  keep = 1;
                }
              } else if (change === "restore") {
                const stored = await manager.store.listCheckpoints("t");
                // Newest first: a drawn one of the checkpoints before the head.
                const target = stored[1 + Math.floor(where * (stored.length - 1))];
                const head = (await manager.store.readHead("t"))!;
                if (target && target.tuple.checkpoint.id !== head.tuple.checkpoint.id) {
                  await manager.replaceThreadHistory(config, target.messages, {
                    expectedCheckpointId: head.tuple.checkpoint.id,
                    metadata: {
                      restore: {
                        fromCheckpointId: target.tuple.checkpoint.id,
                        replacedCheckpointId: head.tuple.checkpoint.id,
                      },
                    },
                  });
                  restores++;
                  restored++;
                }
                // The checkpoints stay for a later restore.
                keep = undefined;
              }
              if (edit === "clear") {
                const report = await compactWithStrategy({
                  manager: editor,
                  strategy: clearToolResults({ keep: 0 }),
                  threadId: "t",
                });
                if (report.status === "compacted") edits++;
              } else if (edit === "archive") {
                // As the wrapper's archive writes: tool outputs moved behind a pointer, the head force-written.
                const head = (await manager.store.readHead("t"))!;
                const { messages, archived } = await archive.archive(head.messages, { threadId: "t" });
                if (archived.length > 0) {
                  await manager.replaceReadHead("t", head, messages, {
                    compaction: { replacedCheckpointId: head.tuple.checkpoint.id, archived },
                  });
                  archives++;
                }
              }
              const report = await manager.compactThread(config, { compactionRatio });
              if (report.status === "compacted") compactions++;
              await graph.updateState(
                config,
                { messages: buildHistory({ ...next, systems: [] }, `r${index}`) },
                "agent",
              );
              if (keep !== undefined) {
                await remember();
                if ((await pruneThread(saver, config, { keep })).status === "pruned") prunes++;
              }
            }
            await remember();
            if (restored > 1) restoredTwice++;
            if (restored > 0 && edited) restoredAndEdited++;
            expectEveryMessage(await wholeTranscript(saver, "t", 7), [...ever.values()]);
            // Reindexing (a replay of the library's writes, keeping what pruned checkpoints alone held) changes nothing.
            await reindexThread(saver, config);
            expectEveryMessage(await wholeTranscript(saver, "t"), [...ever.values()]);
          },
        ),
        { seed: FUZZ_SEED, numRuns: RUNS },
      );
      expect(compactions).toBeGreaterThan(RUNS / 2);
      expect(edits).toBeGreaterThan(0);
      expect(prunes).toBeGreaterThan(0);
      expect(archives).toBeGreaterThan(0);
      // Any mix: threads restored more than once, and threads both restored and edited, are among them.
      expect({
        removals: removals > 0,
        restores: restores > 0,
        restoredTwice: restoredTwice > 0,
        restoredAndEdited: restoredAndEdited > 0,
      }).toEqual({ removals: true, restores: true, restoredTwice: true, restoredAndEdited: true });
    },
    120_000 + RUNS * 500,
  );

  it("refuses a bad page and an unknown thread, naming the value", async () => {
    const saver = new MemorySaver();
    await expect(readTranscript(saver, { configurable: { thread_id: "nobody" } })).rejects.toMatchObject({
      code: "THREAD_NOT_FOUND",
    });
    await expect(readTranscript(saver, {})).rejects.toMatchObject({ code: "MISSING_THREAD_ID" });
    await expect(readTranscript(saver, { configurable: { thread_id: "t" } }, { limit: 0 })).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
      parameter: "limit",
    });
    await expect(readTranscript(saver, { configurable: { thread_id: "t" } }, { after: 1.5 })).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
      parameter: "after",
    });
  });
});

for (const kind of ["sqlite", "postgres"] as const) {
  describe(`the transcript on ${kind}`, () => {
    let store: TestStore;
    beforeAll(async () => void (store = await createStore(kind)));
    afterAll(async () => await store.close());

    it("holds every message of a compacted team thread, as the wrapper and the script leave it", async () => {
      const team = createTeam(store.saver);
      const supervisor = new CompactingSupervisor(team, { trigger: { tokens: 1_200 }, background: false, env: {} });
      for (let turn = 0; turn < 14; turn++) {
        await supervisor.invoke(
          {
            messages: [
              new HumanMessage({
                id: `ask-${turn}`,
                content: `What are the Stripe fees for order ord_${turn}, and who approved the refund?`,
              }),
            ],
          },
          { configurable: { thread_id: "team" } },
        );
      }
      const ever = await everMessages(store.saver, "team");
      const transcript = await wholeTranscript(store.saver, "team", 10);
      expect(transcript.filter((line) => line.source === "transcript").length).toBeGreaterThan(20);
      expectEveryMessage(transcript, ever);
    });

    it("the script's history --transcript prints the same conversation", async () => {
      const where =
        kind === "sqlite"
          ? ["--db", store.location.path!]
          : ["--postgres", store.location.url!, "--schema", store.location.schema!];
      const result = await runScript(["history", "team", ...where, "--transcript", "--json"]);
      expect(result.code, result.stderr).toBe(0);
      const printed = JSON.parse(result.stdout) as {
        messages: Array<{ id: string; source: string; content: unknown }>;
      };
      const transcript = await wholeTranscript(store.saver, "team");
      expect(printed.messages.map((line) => [line.id, line.source])).toEqual(
        transcript.map((line) => [line.message.id, line.source]),
      );
      const text = await runScript(["history", "team", ...where, "--transcript"]);
      // The summary is counted apart from the conversation's messages.
      const summaries = transcript.filter((line) => line.source === "summary").length;
      expect(text.stdout).toMatch(
        new RegExp(
          `${transcript.length - summaries} messages: \\d+ compacted out of the head \\(in the transcript\\), \\d+ in the head and the summary`,
        ),
      );
    });

    if (kind === "sqlite") {
      it("entries written before the transcript are read from their checkpoint, and reindex stores them", async () => {
        const db = (store.saver as SqliteSaver).db;
        db.prepare(`UPDATE compaction_recall SET message = NULL, previous_id = NULL WHERE thread_id = 'team'`).run();
        const ever = await everMessages(store.saver, "team");
        expectEveryMessage(await wholeTranscript(store.saver, "team"), ever);
        await reindexThread(store.saver, { configurable: { thread_id: "team" } });
        const missing = db
          .prepare(`SELECT count(*) AS n FROM compaction_recall WHERE thread_id = 'team' AND message IS NULL`)
          .get() as { n: number };
        expect(missing.n).toBe(0);
        expectEveryMessage(await wholeTranscript(store.saver, "team"), ever);
      });
    }
  });
}
