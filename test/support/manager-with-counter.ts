/**
 * A HistoryManager whose token counter the test holds (to count its passes, or to share its cache): resolved by the
 * one resolver, as the runtimes build theirs.
 */
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { MANAGER_OPTIONS, type HistoryManagerOptions } from "../../src/engine/manager-options.js";
import { resolveSettings } from "../../src/engine/settings.js";
import { threadStoreFor } from "../../src/store/thread-store.js";
import type { TokenCounter } from "../../src/tokens/token-counter.js";

export function managerWithCounter(
  checkpointer: BaseCheckpointSaver,
  counter: TokenCounter,
  options: Omit<HistoryManagerOptions, "checkpointer"> = {},
): HistoryManager {
  const settings = resolveSettings("HistoryManager", MANAGER_OPTIONS, { checkpointer, ...options }, { counter });
  return HistoryManager.of({ ...settings, store: threadStoreFor(checkpointer) });
}
