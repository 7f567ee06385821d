/** What the wrapper's ThreadCompactor works with: the thread's config, the graph's state reader and its parts. */
import type { OutputArchive } from "../../archive/types.js";
import type { HistoryManager } from "../../engine/history-manager.js";
import type { ThreadStrategy } from "../../strategies/types.js";
import type { CompactionEvents } from "./compaction-events.js";
import type { ThreadRecords } from "./thread-records.js";

export type ThreadConfig = { configurable: { thread_id: string | number; checkpoint_ns?: string } } & Record<
  string,
  unknown
>;

/** The subset of a compiled graph the wrapper reads the thread's state with (counting a turn it did not see). */
export interface StateReader {
  getState(config: { configurable: Record<string, unknown> }): Promise<{ values: unknown }>;
}

/** The wrapper's own settings (the rest are the engine's). */
export interface WrapperSettings {
  background: boolean;
  keepCheckpoints?: number | undefined;
}

export interface ThreadCompactorParts {
  graph: StateReader;
  options: WrapperSettings;
  manager: HistoryManager;
  records: ThreadRecords;
  events: CompactionEvents;
  archive?: OutputArchive;
  strategy?: ThreadStrategy;
}
