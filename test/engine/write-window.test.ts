/**
 * A writer outside the application (the worker) writes a compaction right after a turn ends or onto a quiet thread,
 * never onto a head a next turn may have read and not written from yet (engine/manager-options.ts: WriteWindow). The
 * heads here are written at chosen times (their ids say when), so no test waits on the clock.
 */
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { emptyCheckpoint, MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { MANAGER_OPTIONS, type WriteWindow } from "../../src/engine/manager-options.js";
import { resolveSettings } from "../../src/engine/settings.js";
import { isSummaryMessage } from "../../src/messages/summary-message.js";
import { checkpointIdAt } from "../../src/store/checkpoint-time.js";
import { threadStoreFor } from "../../src/store/thread-store.js";
import { generateHistory } from "../../scripts/workload/history.js";
import { GatedSummarizer } from "../support/fakes/gated-summarizer.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Writes `messages` as the thread's head, made at `at` (ms since 1970), after `parent` when given. */
async function putHead(
  saver: BaseCheckpointSaver,
  threadId: string,
  messages: readonly BaseMessage[],
  at: number,
  parent?: string,
): Promise<string> {
  const checkpoint = emptyCheckpoint();
  // An id made at `at`, unique by its last part.
  const random = randomBytes(8).toString("hex");
  checkpoint.id = checkpointIdAt(at).replace(/-0000-000000000000$/, `-8${random.slice(0, 3)}-${random.slice(3, 15)}`);
  checkpoint.channel_values = { messages };
  checkpoint.channel_versions = { messages: parent ? 2 : 1 };
  await saver.put(
    { configurable: { thread_id: threadId, checkpoint_ns: "", ...(parent ? { checkpoint_id: parent } : {}) } },
    checkpoint,
    { source: "loop", step: parent ? 2 : 1, parents: {} },
    { messages: checkpoint.channel_versions.messages! },
  );
  return checkpoint.id;
}

function manager(saver: BaseCheckpointSaver, writeWindow: WriteWindow, summarizer = new GatedSummarizer()) {
  summarizer.release();
  const settings = resolveSettings("HistoryManager", MANAGER_OPTIONS, {
    checkpointer: saver,
    trigger: { tokens: 1_000 },
    summarizer,
    env: {},
  });
  return HistoryManager.of({ ...settings, store: threadStoreFor(saver), writeWindow });
}

const config = { configurable: { thread_id: "t" } };
const history = generateHistory({ messages: 40 });

it("writes onto a head just written, and onto a quiet one", async () => {
  const saver = new MemorySaver();
  await putHead(saver, "t", history, Date.now());
  const fresh = await manager(saver, { freshMs: 10 * MINUTE, quietMs: HOUR }).compactThread(config, { busyWaitMs: 0 });
  expect(fresh.status).toBe("compacted");

  const quiet = new MemorySaver();
  await putHead(quiet, "t", history, Date.now() - 2 * HOUR);
  const report = await manager(quiet, { freshMs: 10 * MINUTE, quietMs: HOUR }).compactThread(config, { busyWaitMs: 0 });
  expect(report.status).toBe("compacted");
});

it("leaves a head in between, written neither just now nor long ago, as it is", async () => {
  const saver = new MemorySaver();
  const headId = await putHead(saver, "t", history, Date.now() - 30 * MINUTE);
  const report = await manager(saver, { freshMs: MINUTE, quietMs: HOUR }).compactThread(config, { busyWaitMs: 0 });
  expect(report).toMatchObject({ status: "skipped", code: "BUSY" });
  expect(report.reason).toMatch(/a next turn may have read it/);
  expect((await saver.getTuple(config))!.checkpoint.id).toBe(headId);
});

/** A MemorySaver that counts the reads of a head. */
class CountingSaver extends MemorySaver {
  reads = 0;
  override getTuple(...args: Parameters<MemorySaver["getTuple"]>) {
    this.reads++;
    return super.getTuple(...args);
  }
}

it("waits for the next turn's end, and writes onto it, the turn's message kept", async () => {
  const saver = new CountingSaver();
  const headId = await putHead(saver, "t", history, Date.now() - 30 * MINUTE);
  const summarizer = new GatedSummarizer();
  const compacting = manager(saver, { freshMs: 10 * MINUTE, quietMs: HOUR }, summarizer);
  summarizer.close();
  let settled = false;
  const report = compacting.compactThread(config, { busyWaitMs: 10 * MINUTE }).finally(() => (settled = true));
  await expect.poll(() => summarizer.calls).toBe(1);
  // The summary made: the compaction looks at the head again and again, waiting (had it written, it would be done).
  const reads = saver.reads;
  summarizer.release();
  await expect.poll(() => settled || saver.reads >= reads + 3).toBe(true);
  expect(settled).toBe(false);
  // A turn ends: its head, written now, is the one the summary lands on.
  const turn = new HumanMessage({ id: "turn-after", content: "One more question about invoice 4471." });
  await putHead(saver, "t", [...history, turn], Date.now(), headId);
  const written = await report;
  expect(written.status).toBe("compacted");
  const head = (await saver.getTuple(config))!.checkpoint.channel_values.messages as BaseMessage[];
  expect(head.some(isSummaryMessage)).toBe(true);
  expect(head.at(-1)!.id).toBe("turn-after");
});

it("writes onto a turn's head that appears while it waits, however long before its commit the head's id was made", async () => {
  // Under load a turn's checkpoint can be committed well after its id was made: its id alone would call it too old
  // to write on, at every look. The compaction sees it appear between two looks: it was written since the first.
  const saver = new CountingSaver();
  const headId = await putHead(saver, "t", history, Date.now() - 50 * MINUTE);
  const summarizer = new GatedSummarizer();
  const compacting = manager(saver, { freshMs: MINUTE, quietMs: HOUR }, summarizer);
  summarizer.close();
  const report = compacting.compactThread(config, { busyWaitMs: MINUTE });
  await expect.poll(() => summarizer.calls).toBe(1);
  // The summary made, the compaction looks at the head (too old to write on) before the turn lands.
  const reads = saver.reads;
  summarizer.release();
  await expect.poll(() => saver.reads).toBeGreaterThanOrEqual(reads + 2);
  const turn = new HumanMessage({ id: "late-commit", content: "And the refund for invoice 4471?" });
  await putHead(saver, "t", [...history, turn], Date.now() - 20 * MINUTE, headId);
  const written = await report;
  expect(written.status).toBe("compacted");
  const head = (await saver.getTuple(config))!.checkpoint.channel_values.messages as BaseMessage[];
  expect(head.some(isSummaryMessage)).toBe(true);
  expect(head.at(-1)!.id).toBe("late-commit");
});
