/**
 * The compaction worker: a `worker_threads` entry that opens its own connection to the store and runs the engine's
 * CPU-heavy half — read and deserialize the head, count it, plan, summarize (offline), build the replacement and its
 * recall rows — and the compare-and-swap write, so the application's event loop does none of it. Prepared summaries
 * stay here, under a handle, until the application says when to apply them (between its turns).
 */
import { parentPort } from "node:worker_threads";
import { CompactionError } from "../../errors.js";
import { HistoryManager, type PreparedCompaction } from "../../engine/history-manager.js";
import { openPostgresStore, openSqliteStore, type OpenedStore } from "../../store/open.js";
import { ExtractiveSummarizer } from "../../summarizers/extractive.js";
import { TokenCounter } from "../../tokens/token-counter.js";
import { engineSettingsOf, MAX_HELD_SUMMARIES, type RemotePrepared, type WorkerEngineSettings, type WorkerReply, type WorkerRequest } from "./protocol.js";

/** Stores a worker keeps open at most; the least recently used one holding no summary is closed. */
export const MAX_OPEN_STORES = 8;

const engines = new Map<string, Promise<{ store: OpenedStore; manager: HistoryManager }>>();
const held = new Map<number, { prepared: PreparedCompaction; manager: HistoryManager }>();
/** Requests running on each engine (its store is never closed under them). */
const running = new Map<HistoryManager, number>();
let nextHandle = 1;

/** Runs `work` on `manager`'s engine, counted as running. */
async function using<T>(manager: HistoryManager, work: () => Promise<T>): Promise<T> {
  running.set(manager, (running.get(manager) ?? 0) + 1);
  try {
    return await work();
  } finally {
    const left = running.get(manager)! - 1;
    if (left === 0) running.delete(manager);
    else running.set(manager, left);
  }
}

function engineFor(settings: WorkerEngineSettings): Promise<{ store: OpenedStore; manager: HistoryManager }> {
  const key = JSON.stringify(settings);
  let engine = engines.get(key);
  if (engine) {
    // Most recently used last.
    engines.delete(key);
    engines.set(key, engine);
  } else {
    if (engines.size >= MAX_OPEN_STORES) void closeIdleStore();
    engine = (async () => {
      const { location } = settings;
      const recallLanguage = typeof settings.recall === "object" ? settings.recall.language : undefined;
      const store =
        location.kind === "sqlite"
          ? await openSqliteStore(location.path, recallLanguage ? { recallLanguage } : {})
          : await openPostgresStore(location.url, { schema: location.schema, ...(recallLanguage ? { recallLanguage } : {}) });
      const counter = new TokenCounter({ model: settings.policy.model });
      const manager = new HistoryManager({ checkpointer: store.saver, ...engineSettingsOf(settings), summarizer: new ExtractiveSummarizer({ counter }), counter });
      return { store, manager };
    })();
    engines.set(key, engine);
    engine.catch(() => engines.delete(key));
  }
  return engine;
}

/** Closes the least recently used store whose engine holds no prepared summary and runs nothing. */
async function closeIdleStore(): Promise<void> {
  const busy = new Set([...held.values()].map((entry) => entry.manager));
  // The most recently used engine (the one the caller is about to use) is never closed.
  for (const [key, engine] of [...engines].slice(0, -1)) {
    const opened = await engine.catch(() => undefined);
    if (opened && (busy.has(opened.manager) || running.has(opened.manager))) continue;
    engines.delete(key);
    await opened?.store.close();
    return;
  }
}

async function handle(request: WorkerRequest): Promise<RemotePrepared | Awaited<ReturnType<HistoryManager["applyCompaction"]>> | null> {
  if (request.kind === "discard") {
    held.delete(request.handle);
    return null;
  }
  if (request.kind === "prepare") {
    const { manager } = await engineFor(request.settings);
    // The head a turn ended on may be pruned before this reads it (keepCheckpoints): then the head as it is now.
    const result = await using(manager, () => manager.prepareCompaction({ configurable: { thread_id: request.threadId, ...(request.at ? { checkpoint_id: request.at } : {}) } }, { orHead: true }));
    if (result.status !== "prepared") return result;
    const id = nextHandle++;
    held.set(id, { prepared: result, manager });
    // The pool never asks for more than a worker may hold (worker-pool.ts); past that (a pool of another version),
    // the oldest is dropped and applying it reports why.
    if (held.size > MAX_HELD_SUMMARIES) held.delete(held.keys().next().value!);
    return {
      status: "prepared",
      threadId: result.threadId,
      handle: id,
      snapshotCheckpointId: result.snapshotCheckpointId,
      messagesBefore: result.messagesBefore,
      tokensBefore: result.tokensBefore,
      summaryId: result.compacted.summary.id!,
      summarizer: result.compacted.summarizer.name,
    };
  }
  const entry = held.get(request.handle);
  if (!entry) {
    throw new CompactionError({ code: "WORKER_FAILED", value: request.handle, message: `the prepared summary ${request.handle} is no longer held by the compaction worker: nothing was written` });
  }
  const report = await using(entry.manager, () => entry.manager.applyCompaction(entry.prepared, { busyWaitMs: request.busyWaitMs }));
  // A busy head keeps the summary for the next gap; any other outcome is final.
  if (report.status !== "skipped") held.delete(request.handle);
  return report;
}

parentPort?.postMessage({ ready: true });
parentPort?.on("message", (request: WorkerRequest) => {
  void handle(request).then(
    (value) => parentPort!.postMessage({ id: request.id, ok: true, value } satisfies WorkerReply),
    (error: unknown) =>
      parentPort!.postMessage({
        id: request.id,
        ok: false,
        error: CompactionError.isInstance(error)
          ? { code: error.code, message: error.message, ...(error.parameter ? { parameter: error.parameter } : {}) }
          : { message: error instanceof Error ? error.message : String(error) },
      } satisfies WorkerReply),
  );
});
