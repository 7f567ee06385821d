/**
 * With `keepCheckpoints`: after a turn and after a compaction lands, delete the thread's checkpoints the transcript
 * makes redundant — off the turn's path with background compaction (`track` hands the prune to flush()), inside it
 * with `background: false`, as the compaction itself. One prune per thread at a time: asked for while one runs, it
 * runs once more after it (however often it was asked). A failure goes to onCompactionError (nothing deleted).
 */
import type { HistoryManager } from "../../engine/history-manager.js";
import type { CompactionEvents } from "./compaction-events.js";
import type { ResolvedOptions } from "./options.js";
import type { ThreadRecord } from "./thread-records.js";

export async function pruneAfter(
  record: ThreadRecord,
  { options, manager, events }: { options: ResolvedOptions; manager: HistoryManager; events: CompactionEvents },
  track: (task: Promise<unknown>) => void,
): Promise<void> {
  const keep = options.keepCheckpoints;
  if (keep === undefined) return;
  if (record.pruning) {
    record.pruneAgain = true;
    return options.background ? undefined : record.pruning;
  }
  const { threadId } = record;
  const pruning = (async () => {
    do {
      record.pruneAgain = false;
      try {
        await manager.pruneThread({ configurable: { thread_id: threadId } }, { keep });
      } catch (error) {
        await events.error(error, threadId);
      }
    } while (record.pruneAgain);
  })().finally(() => {
    if (record.pruning === pruning) record.pruning = undefined;
  });
  record.pruning = pruning;
  if (options.background) track(pruning);
  else await pruning;
}
