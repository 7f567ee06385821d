/**
 * With `keepCheckpoints`: after a turn and after a compaction lands, delete the thread's checkpoints the transcript
 * makes redundant — off the turn's path with background compaction (`track` hands the prune to flush()), inside it
 * with `background: false`, as the compaction itself. One prune per thread at a time: asked for while one runs, it
 * runs once more after it (however often it was asked). A failure goes to onCompactionError (nothing deleted).
 */
import type { HistoryManager } from "../../engine/history-manager.js";
import type { CompactionEvents } from "./compaction-events.js";
import type { WrapperSettings } from "./thread-compactor-parts.js";
import type { ThreadRecord } from "./thread-records.js";

export async function pruneAfter(
  record: ThreadRecord,
  { options, manager, events }: { options: WrapperSettings; manager: HistoryManager; events: CompactionEvents },
  track: (task: Promise<unknown>) => void,
): Promise<void> {
  const keep = options.keepCheckpoints;
  if (keep === undefined) return;
  const { threadId } = record;
  const { pruning, started } = record.compaction.prune(async () => {
    try {
      await manager.pruneThread({ configurable: { thread_id: threadId } }, { keep });
    } catch (error) {
      await events.error(error, threadId);
    }
  });
  if (!options.background) await pruning;
  else if (started) track(pruning);
}
