/**
 * Rebasing a summary: a compaction covers a prefix of the thread (the system messages, any previous summary and the
 * oldest messages up to the cut). If, when the summary is ready, the head still starts with that prefix — same ids,
 * same contents — whatever was appended since is carried over verbatim: `[system, summary, pinned, current after
 * the prefix]`. A head whose prefix changed (another compaction, a restore, an edit) cannot take the summary.
 * Pure: no I/O.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { storedForm } from "../messages/stored-form.js";

/** The parts of a compaction a rebase needs (a CompactedMessages has them). */
export interface RebaseSource {
  plan: { system: readonly BaseMessage[]; pinned: readonly BaseMessage[]; prefixLength: number };
  summary: BaseMessage;
}

export type RebaseResult = { ok: true; messages: BaseMessage[]; appended: number } | { ok: false; reason: string };

/** True when `b` is `a` as stored: the same object, or the same id and stored form (messages/stored-form.ts). */
export function sameMessage(a: BaseMessage, b: BaseMessage): boolean {
  return a === b || (a.id === b.id && storedForm(a) === storedForm(b));
}

/**
 * Index of the first message of `prefix` that `current` does not hold at the same position unchanged, or -1 when
 * `current` starts with all of `prefix`.
 */
export function prefixMismatch(prefix: readonly BaseMessage[], current: readonly BaseMessage[]): number {
  for (let index = 0; index < prefix.length; index++) {
    if (index >= current.length || !sameMessage(prefix[index]!, current[index]!)) return index;
  }
  return -1;
}

/**
 * The replacement for `current` given a compaction computed on a snapshot whose first `plan.prefixLength` messages
 * are `prefix`: `[system, summary, pinned, ...current.slice(prefixLength)]`, or why it cannot be applied.
 * `snapshotLength` is the length of the snapshot the summary was computed on (to report what was appended since).
 */
export function rebaseCompaction(
  source: RebaseSource,
  prefix: readonly BaseMessage[],
  current: readonly BaseMessage[],
  snapshotLength: number,
): RebaseResult {
  const mismatch = prefixMismatch(prefix, current);
  if (mismatch >= 0) {
    const found = current[mismatch];
    return {
      ok: false,
      reason:
        found === undefined
          ? `the head holds ${current.length} messages, fewer than the ${prefix.length} the summary covers (restored or compacted meanwhile)`
          : `message ${mismatch} of the summarized prefix changed (${JSON.stringify(prefix[mismatch]!.id ?? null)} became ${JSON.stringify(found.id ?? null)}): compacted, restored or edited meanwhile`,
    };
  }
  return {
    ok: true,
    messages: [
      ...source.plan.system,
      source.summary,
      ...source.plan.pinned,
      ...current.slice(source.plan.prefixLength),
    ],
    appended: Math.max(0, current.length - snapshotLength),
  };
}
