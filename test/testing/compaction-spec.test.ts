/**
 * The conformance suite on the three savers the library knows (MemorySaver, a SQLite file, a real Postgres) and on
 * a fourth written here — a saver the library has never seen, so its writes take the best-effort path — to show a
 * user's own saver plugs in the same way.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  BaseCheckpointSaver,
  MemorySaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  type PendingWrite,
} from "@langchain/langgraph-checkpoint";
import { expect, it } from "vitest";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { compactionSpec } from "../../src/testing/index.js";
import { createStore, SAVER_KINDS, type TestStore } from "../support/savers.js";

for (const kind of SAVER_KINDS) {
  const opened = new Map<BaseCheckpointSaver, TestStore>();
  compactionSpec({
    name: kind,
    createSaver: async () => {
      const store = await createStore(kind);
      opened.set(store.saver, store);
      return store.saver;
    },
    destroySaver: async (saver) => {
      await opened.get(saver)?.close();
      opened.delete(saver);
    },
  });
}

/** A user's saver: every call delegated to a MemorySaver it wraps (so it is neither of the known backends). */
class DelegatingSaver extends BaseCheckpointSaver {
  private readonly inner = new MemorySaver();

  getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    return this.inner.getTuple(config);
  }

  list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    return this.inner.list(config, options);
  }

  put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    _newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    return this.inner.put(config, checkpoint, metadata);
  }

  putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    return this.inner.putWrites(config, writes, taskId);
  }

  deleteThread(threadId: string): Promise<void> {
    return this.inner.deleteThread(threadId);
  }
}

it("a saver the library does not know takes the best-effort write path", () => {
  expect(new HistoryManager({ checkpointer: new DelegatingSaver() }).backend).toBe("generic");
});

compactionSpec({ name: "a user's own saver (best-effort path)", createSaver: async () => new DelegatingSaver() });
