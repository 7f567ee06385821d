/**
 * A thread's line: the head and its ancestors. A write of this library lands on the head it read (the
 * compare-and-swap), yet a turn that had read the thread just before that write and wrote just after it descends
 * from the write's parent, not from the write: the write is superseded. Nothing is lost (the turn's head holds what
 * the write replaced), but the write no longer counts. Checkpoint ids sort in the order they were written.
 */
import type { BaseCheckpointSaver, CheckpointTuple } from "@langchain/langgraph-checkpoint";
import { writtenByLibrary } from "./replacement-checkpoint.js";

const parentOf = (tuple: CheckpointTuple) => tuple.parentConfig?.configurable?.checkpoint_id as string | undefined;

/** The ids of the head's line among `tuples` (any order; the head is the greatest id). */
export function lineOf(tuples: readonly CheckpointTuple[]): Set<string> {
  const parents = new Map(tuples.map((tuple) => [tuple.checkpoint.id, parentOf(tuple)]));
  const head = [...parents.keys()].sort().at(-1);
  const line = new Set<string>();
  for (let id = head; id !== undefined && !line.has(id); id = parents.get(id)) line.add(id);
  return line;
}

/** The checkpoints this library wrote that are not in the head's line (superseded, or on a branch left behind). */
export function supersededWrites(tuples: readonly CheckpointTuple[]): Set<string> {
  const line = lineOf(tuples);
  return new Set(
    tuples
      .filter(
        (tuple) =>
          writtenByLibrary(tuple.metadata as Record<string, unknown> | undefined) && !line.has(tuple.checkpoint.id),
      )
      .map((tuple) => tuple.checkpoint.id),
  );
}

/**
 * Whether `writtenId` is still in the line of the thread's head (it is the head, or the head descends from it). Reads
 * only the checkpoints written since it, newest first.
 */
export async function stillInLine(saver: BaseCheckpointSaver, threadId: string, writtenId: string): Promise<boolean> {
  // A few turns' checkpoints at most, right after the write; the whole history only when more were written since.
  for (const limit of [RECENT, undefined]) {
    const since: CheckpointTuple[] = [];
    let reachedOlder = false;
    for await (const tuple of saver.list(
      { configurable: { thread_id: threadId, checkpoint_ns: "" } },
      limit === undefined ? {} : { limit },
    )) {
      if (tuple.checkpoint.id < writtenId) {
        reachedOlder = true;
        break;
      }
      since.push(tuple);
    }
    if (reachedOlder || limit === undefined || since.length < limit) return lineOf(since).has(writtenId);
  }
  return false;
}

/** Checkpoints read first by `stillInLine`. */
const RECENT = 64;
