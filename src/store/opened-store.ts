/** A checkpoint store the script opened from a path or a URL. */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import type { ThreadStore } from "./thread-store.js";

export interface OpenedStore {
  kind: "sqlite" | "postgres";
  saver: BaseCheckpointSaver;
  /** The saver's ThreadStore: heads, checkpoints, the compare-and-swap, the recall index, the thread listing. */
  threads: ThreadStore;
  /** Opened as a read-only copy (this process cannot write the SQLite file): reading commands only. */
  readOnly: boolean;
  close(): Promise<void>;
}
