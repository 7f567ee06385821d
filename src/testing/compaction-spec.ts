/**
 * compactionSpec(initializer): one behaviour suite for every checkpoint saver. It registers vitest tests that run the
 * library's writes — the HistoryManager's compaction, the wrapper's, a strategy's and the archive's — on savers the
 * initializer creates, and checks after each that nothing was lost (auditThread), plus the compare-and-swap's
 * conflict and busy cases, a rebase onto a turn that landed during the summary, recall of compacted messages, and a
 * failing summarizer (the crash point every saver can reach: nothing written). Run it on your own saver:
 *   import { compactionSpec } from "langgraph-compaction/testing";
 *   compactionSpec({ name: "my saver", createSaver: async () => new MySaver(), destroySaver: async (s) => s.close() });
 *
 * No model is called: the graphs are plain StateGraphs whose nodes answer with fixed messages (spec-fixtures.ts).
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { InMemoryStore, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { vitestApi } from "./vitest-api.js";
import {
  TURNS,
  THREAD,
  config,
  question,
  MESSAGE_STATES,
  type MessageState,
  chatGraph,
  toolGraph,
  turns,
  checkpointCount,
  headTuple,
  headMessages,
  expectNothingLost,
  useMessageState,
} from "./spec-fixtures.js";
import { auditThread } from "../engine/audit.js";
import { HistoryManager } from "../engine/history-manager.js";
import { threadStoreFor } from "../store/thread-store.js";
import { getSummaryProvenance, isSummaryMessage } from "../messages/summary-message.js";
import { searchHistory } from "../recall/search.js";
import { readTranscript } from "../recall/transcript.js";
import { pruneThread } from "../engine/prune.js";
import { ExtractiveSummarizer } from "../summarizers/extractive.js";
import type { Summarizer } from "../summarizers/types.js";
import { CompactingSupervisor } from "../runtimes/wrapper/compacting-supervisor.js";
import { createStrategy } from "../strategies/registry.js";
import { ToolOutputArchive } from "../archive/archive.js";

export interface SaverInitializer {
  /** Shown in the suite's name. */
  name: string;
  /** A fresh, empty saver (its own file, schema or database). */
  createSaver(): Promise<BaseCheckpointSaver>;
  /** Closes or drops what `createSaver` made. */
  destroySaver?(saver: BaseCheckpointSaver): Promise<void>;
}

/** @throws CompactionError MISSING_DEPENDENCY when vitest is not installed. */
export function compactionSpec(initializer: SaverInitializer): void {
  vitestApi();
  for (const [label, messageState] of Object.entries(MESSAGE_STATES)) {
    vitestApi().describe(`compactionSpec: ${initializer.name}, ${label}`, () => specCases(initializer, messageState));
  }
}

function specCases(initializer: SaverInitializer, messageState: MessageState): void {
  {
    let saver: BaseCheckpointSaver;
    vitestApi().beforeEach(async () => {
      useMessageState(messageState);
      saver = await initializer.createSaver();
    });
    vitestApi().afterEach(async () => {
      await initializer.destroySaver?.(saver);
    });

    vitestApi().it(
      "compactThread writes [summary, kept messages] and loses nothing; the previous head keeps every message",
      async () => {
        await turns(chatGraph(saver), 0, TURNS);
        const before = await headMessages(saver);
        const report = await new HistoryManager({
          checkpointer: saver,
          summarizer: new ExtractiveSummarizer(),
        }).compactThread(config);
        vitestApi().expect(report.status, report.reason).toBe("compacted");
        const head = await headMessages(saver);
        vitestApi().expect(isSummaryMessage(head[0]!)).toBe(true);
        vitestApi().expect(head.length).toBeLessThan(before.length);
        vitestApi().expect(head.at(-1)!.content).toBe(before.at(-1)!.content);
        const previous = await threadStoreFor(saver).readCheckpoint(THREAD, report.previousCheckpointId!);
        vitestApi()
          .expect(previous!.messages.map((message) => message.id))
          .toEqual(before.map((message) => message.id));
        await expectNothingLost(saver);
      },
    );

    vitestApi().it(
      "prune: the old checkpoints go and every message stays in the head or the transcript (UNSUPPORTED where the saver cannot delete)",
      async () => {
        await turns(chatGraph(saver), 0, TURNS);
        await new HistoryManager({ checkpointer: saver, summarizer: new ExtractiveSummarizer() }).compactThread(config);
        await turns(chatGraph(saver), TURNS, TURNS + 4);
        const sent: string[] = [];
        for (const { messages } of (await threadStoreFor(saver).listCheckpoints(THREAD)).reverse()) {
          for (const message of messages)
            if (message.id && getSummaryProvenance(message) === undefined && !sent.includes(message.id))
              sent.push(message.id);
        }
        const before = await checkpointCount(saver);
        if (!threadStoreFor(saver).prunable) {
          await vitestApi()
            .expect(pruneThread(saver, config, { keep: 1 }))
            .rejects.toMatchObject({ code: "UNSUPPORTED" });
          vitestApi()
            .expect(await checkpointCount(saver))
            .toBe(before);
          return;
        }
        const report = await pruneThread(saver, config, { keep: 1 });
        vitestApi().expect(report.status).toBe("pruned");
        // The head, and on a delta channel the ancestors its messages are rebuilt from.
        vitestApi()
          .expect(await checkpointCount(saver))
          .toBe(report.kept);
        vitestApi().expect(report.kept).toBeLessThan(before);
        const transcript = await readTranscript(saver, config, { limit: 10_000 });
        vitestApi()
          .expect(transcript.messages.filter((line) => line.source !== "summary").map((line) => line.message.id))
          .toEqual(sent);
        const audit = await auditThread(saver, config);
        vitestApi().expect(audit.problems).toEqual([]);
        vitestApi()
          .expect(audit.inHead + audit.covered + audit.recorded)
          .toBe(audit.messagesEver);
        await turns(chatGraph(saver), TURNS + 4, TURNS + 5);
        vitestApi()
          .expect(String((await headMessages(saver)).at(-1)!.content))
          .toContain(`QX${1000 + TURNS + 4}`);
      },
    );

    vitestApi().it("recall: a message compaction took out of the head is found by searchHistory", async () => {
      await turns(chatGraph(saver), 0, TURNS);
      await new HistoryManager({ checkpointer: saver, summarizer: new ExtractiveSummarizer() }).compactThread(config);
      const head = await headMessages(saver);
      vitestApi()
        .expect(head.some((message) => String(message.content).includes("Question 1:")))
        .toBe(false);
      const hits = await searchHistory(saver, config, "crate QX1001 aisle");
      vitestApi()
        .expect(hits.some((hit) => hit.text.includes("QX1001")))
        .toBe(true);
    });

    vitestApi().it("the wrapper compacts a thread over its limit after a turn, and the next turn works", async () => {
      const landed: string[] = [];
      const supervisor = new CompactingSupervisor(chatGraph(saver), {
        trigger: { tokens: 500 },
        background: false,
        summarizer: new ExtractiveSummarizer(),
        onCompaction: (report) => void (report.status === "compacted" && landed.push(report.newCheckpointId)),
      });
      await turns(supervisor, 0, TURNS);
      vitestApi().expect(landed.length).toBeGreaterThan(0);
      const result = (await supervisor.invoke({ messages: [new HumanMessage(question(TURNS))] }, config)) as {
        messages: BaseMessage[];
      };
      vitestApi()
        .expect(String(result.messages.at(-1)!.content))
        .toContain(`QX${1000 + TURNS}`);
      await expectNothingLost(saver);
    });

    vitestApi().it(
      "a strategy write (clear-tool-results) keeps every message id, marks the edits, loses nothing",
      async () => {
        const supervisor = new CompactingSupervisor(toolGraph(saver), {
          trigger: { tokens: 2_000 },
          background: false,
          strategy: createStrategy("clear-tool-results"),
        });
        await turns(supervisor, 0, 6);
        const head = await headMessages(saver);
        const cleared = head.filter(
          (message) => message.getType() === "tool" && message.additional_kwargs?.compaction_edit,
        );
        vitestApi().expect(cleared.length).toBeGreaterThan(0);
        await expectNothingLost(saver);
      },
    );

    vitestApi().it(
      "an archive write replaces bulky tool results by pointers, the outputs in the store, nothing lost",
      async () => {
        const store = new InMemoryStore();
        const supervisor = new CompactingSupervisor(toolGraph(saver), {
          trigger: { tokens: 100_000 },
          archive: new ToolOutputArchive({ store, thresholdTokens: 200 }),
        });
        await turns(supervisor, 0, 3);
        await supervisor.flush();
        const head = await headMessages(saver);
        const archived = head.filter(
          (message) => message.getType() === "tool" && message.additional_kwargs?.compaction_edit,
        );
        vitestApi().expect(archived.length).toBeGreaterThan(0);
        vitestApi()
          .expect((await store.search(["archived-outputs"])).length)
          .toBe(archived.length);
        await expectNothingLost(saver);
      },
    );

    vitestApi().it("compare-and-swap: a stale expected head is WRITE_CONFLICT and writes nothing", async () => {
      await turns(chatGraph(saver), 0, 4);
      const manager = new HistoryManager({ checkpointer: saver, summarizer: new ExtractiveSummarizer() });
      const messages = await headMessages(saver);
      const count = await checkpointCount(saver);
      const error = await manager
        .replaceThreadHistory(config, messages.slice(2), {
          expectedCheckpointId: "1f000000-0000-6000-8000-000000000000",
        })
        .catch((caught: unknown) => caught);
      vitestApi().expect(error).toMatchObject({ code: "WRITE_CONFLICT" });
      vitestApi()
        .expect(await checkpointCount(saver))
        .toBe(count);
    });

    vitestApi().it("compare-and-swap: a head with pending writes is busy: skipped, nothing written", async () => {
      await turns(chatGraph(saver), 0, TURNS);
      const head = await headTuple(saver);
      await saver.putWrites(head.config, [["messages", [new AIMessage("half a turn")]]], "task-in-flight");
      const count = await checkpointCount(saver);
      const report = await new HistoryManager({
        checkpointer: saver,
        summarizer: new ExtractiveSummarizer(),
      }).compactThread(config);
      vitestApi().expect(report.status).toBe("skipped");
      vitestApi().expect(report).toMatchObject({ status: "skipped", code: "BUSY" });
      vitestApi()
        .expect(await checkpointCount(saver))
        .toBe(count);
    });

    vitestApi().it("rebase: a turn that lands while the summary is computed is kept after it", async () => {
      const graph = chatGraph(saver);
      await turns(graph, 0, TURNS);
      const manager = new HistoryManager({ checkpointer: saver, summarizer: new ExtractiveSummarizer() });
      const prepared = await manager.prepareCompaction(config);
      if (prepared.status !== "prepared") throw new Error(`nothing prepared: ${prepared.reason}`);
      await turns(graph, TURNS, TURNS + 1);
      const report = await manager.applyCompaction(prepared);
      vitestApi().expect(report.status, report.reason).toBe("compacted");
      vitestApi()
        .expect(report.status === "compacted" && report.rebased?.appendedMessages)
        .toBe(2);
      const head = await headMessages(saver);
      vitestApi()
        .expect(String(head.at(-1)!.content))
        .toContain(`QX${1000 + TURNS}`);
      await expectNothingLost(saver);
    });

    vitestApi().it(
      "a compaction stopped between its summary and its write (a crash there) leaves the head as it was",
      async () => {
        const graph = chatGraph(saver);
        await turns(graph, 0, TURNS);
        const before = (await headTuple(saver)).checkpoint.id;
        const manager = new HistoryManager({ checkpointer: saver, summarizer: new ExtractiveSummarizer() });
        const prepared = await manager.prepareCompaction(config);
        vitestApi().expect(prepared.status).toBe("prepared");
        // The process that prepared it is gone: nothing was written, and the next turn runs on the full thread.
        vitestApi()
          .expect((await headTuple(saver)).checkpoint.id)
          .toBe(before);
        await turns(graph, TURNS, TURNS + 1);
        vitestApi()
          .expect((await headMessages(saver)).some((message) => isSummaryMessage(message)))
          .toBe(false);
        await expectNothingLost(saver);
      },
    );

    vitestApi().it("a summarizer that fails mid-way writes nothing: the head stays the old one", async () => {
      await turns(chatGraph(saver), 0, TURNS);
      const before = (await headTuple(saver)).checkpoint.id;
      const failing: Summarizer = {
        name: "failing",
        summarize: async () => Promise.reject(new Error("provider down")),
      };
      const error = await new HistoryManager({ checkpointer: saver, summarizer: failing })
        .compactThread(config)
        .catch((caught: unknown) => caught);
      vitestApi().expect(error).toMatchObject({ code: "SUMMARIZER_FAILED" });
      vitestApi()
        .expect((await headTuple(saver)).checkpoint.id)
        .toBe(before);
      await expectNothingLost(saver);
    });
  }
}
