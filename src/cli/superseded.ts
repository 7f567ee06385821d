/**
 * A write of the script superseded before it exits: a turn that had read the thread just before the write wrote just
 * after it (store/lineage.ts). The write took effect nowhere; the script says so with a write conflict (exit 9)
 * rather than success. A turn that writes later still supersedes it unseen: `history` marks such writes.
 */
import { CompactionError } from "../errors.js";
import { stillInLine } from "../store/lineage.js";
import type { CliContext } from "./context.js";

/** @throws CompactionError WRITE_CONFLICT when `writtenId` is no longer in the line of the thread's head. */
export async function requireStillInLine(
  context: CliContext,
  threadId: string,
  writtenId: string,
  what: string,
): Promise<void> {
  if (await stillInLine(context.store.saver, threadId, writtenId)) return;
  throw new CompactionError({
    code: "WRITE_CONFLICT",
    value: writtenId,
    message: `thread ${threadId}: the ${what} was written (checkpoint ${writtenId}), then superseded by a turn that had read the thread before it; the head is that turn's and nothing is lost. Run it again.`,
  });
}
