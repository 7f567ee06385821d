import { CompactionError } from "../../errors.js";
import { managerOf, requireThread, type CliContext } from "../context.js";
import { requireStillInLine } from "../superseded.js";
import { number, paint } from "../format.js";

export const RESTORE_HELP = `restore <thread> --checkpoint <id> — make an earlier checkpoint's messages (e.g. from before a compaction)
the head again, written as a new checkpoint: an undo that itself loses nothing. Other channels keep their current
values. Refused for a busy or interrupted thread, or a checkpoint that is not in the thread.

Usage: npx compact-thread restore <thread> --checkpoint <id> (--db <file> | --postgres <url>) [--json]

Examples:
  npx compact-thread restore demo-20261121-101500 --checkpoint 1f0c2a4e-... --db data/demo.sqlite`;

export async function restoreCommand(context: CliContext, threadId: string | undefined): Promise<void> {
  const head = await requireThread(context, threadId);
  const checkpointId = context.options.checkpoint;
  if (!checkpointId) {
    throw new CompactionError({
      code: "INVALID_ARGUMENT",
      parameter: "--checkpoint",
      value: checkpointId,
      message: "restore needs --checkpoint <id> (see the history command)",
    });
  }
  const target = await context.store.threads.readCheckpoint(threadId!, checkpointId);
  if (!target) {
    throw new CompactionError({
      code: "CHECKPOINT_NOT_FOUND",
      value: checkpointId,
      message: `thread ${threadId} has no checkpoint ${checkpointId}: another thread's, or pruned (history lists the checkpoints kept; history --transcript shows every message). Nothing was written.`,
    });
  }
  const { messages } = target;
  const manager = managerOf(context);
  const written = await manager.replaceThreadHistory({ configurable: { thread_id: threadId } }, messages, {
    expectedCheckpointId: head.tuple.checkpoint.id,
    metadata: { restore: { fromCheckpointId: checkpointId, replacedCheckpointId: head.tuple.checkpoint.id } },
  });
  await requireStillInLine(context, threadId!, written.checkpointId, "restore");
  const result = {
    threadId,
    restoredFrom: checkpointId,
    newCheckpointId: written.checkpointId,
    previousCheckpointId: written.previousCheckpointId,
    messages: messages.length,
    tokens: context.counter.countMessages(messages),
  };
  if (context.json) return context.printer.line(JSON.stringify(result, null, 2));
  context.printer.line(
    paint(
      context.printer,
      32,
      `restored ${number(result.messages)} messages (${number(result.tokens)} tokens) from ${checkpointId}`,
    ),
  );
  context.printer.line(`new checkpoint      ${result.newCheckpointId}`);
  context.printer.line(`previous checkpoint ${result.previousCheckpointId}`);
}
