/**
 * Applying a prepared summary to a thread's current head: as computed when the head has not moved, rebased when
 * the thread only grew meanwhile, discarded when the summarized prefix changed. A head busy with a run is waited
 * for (with backoff) up to a deadline; a head that keeps moving is retried up to `MAX_WRITE_ATTEMPTS` times.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { writePolicy, type ManagerSettings } from "./manager-options.js";
import { rebaseCompaction } from "./rebase.js";
import { busyCode, type CompactedReport, type CompactionReport, type SkipCode } from "./report.js";
import { outcomeOfWriteError, writeHistory } from "./write-history.js";
import type { CompactedMessages } from "./summarize-plan.js";
import { threadLocks } from "./thread-lock.js";
import type { ThreadHead } from "../store/read-head.js";
import { readHead, sameMessages, type PreparedCompaction, type ReportBase } from "./read-counted-head.js";

export type { PreparedCompaction, ReportBase } from "./read-counted-head.js";
import { turnOver } from "../slices.js";
import { checkpointTime } from "../store/checkpoint-time.js";
import { rewrittenTokens } from "./prompt-cache.js";
import { retrying, type Attempt } from "./retry.js";

export type ApplyOutcome =
  | { kind: "done"; report: CompactionReport; prefixChanged: boolean }
  | { kind: "busy"; code: SkipCode; reason: string; waitable: boolean; base: ReportBase }
  | { kind: "moved"; reason: string; base: ReportBase };

/**
 * The head each prepared summary was computed from, while the prepared object lives: applying it to a head that has
 * not moved probes only the head's id, instead of reading and deserializing the whole thread a second time.
 */
const snapshots = new WeakMap<PreparedCompaction, ThreadHead>();

/** Remembers the head `prepared` was computed from (see `snapshots`). */
export function rememberSnapshot(prepared: PreparedCompaction, head: ThreadHead): PreparedCompaction {
  snapshots.set(prepared, head);
  return prepared;
}

/**
 * The head to apply `prepared` to: its snapshot when that is still the head (checked by id; the compare-and-swap
 * checks again, and checks for pending writes, inside the write), else the head read afresh. `probed`: the head's id,
 * when this try has probed it already (the write window's look), not probed a second time.
 */
async function headFor(
  settings: ManagerSettings,
  prepared: PreparedCompaction,
  attempt: number,
  probed?: string,
): Promise<{ head: ThreadHead; headId: string; base: ReportBase }> {
  const currentId = async () => (probed ??= await settings.store.readHeadId(prepared.threadId));
  const snapshot = attempt === 1 ? snapshots.get(prepared) : undefined;
  if (snapshot && (await currentId()) === prepared.snapshotCheckpointId)
    return {
      head: snapshot,
      headId: prepared.snapshotCheckpointId,
      base: snapshotBase(prepared, prepared.snapshotCheckpointId, attempt),
    };
  // A head read by an earlier try and still the head (a wait for a busy head, or for the write window): probed by
  // id and reused, not read and counted again on every look (the compare-and-swap checks for pending writes).
  const last = lastRead.get(prepared);
  if (last && attempt > 1 && (await currentId()) === last.headId)
    return { ...last, base: { ...last.base, attempts: attempt } };
  // The head moved: it is read again; counted from the snapshot's count and what was appended since (the rebase
  // carries those over), not counted whole a second time. A head that is not the snapshot grown is counted whole.
  const read = await readHead(settings, prepared.threadId, prepared.compacted.summarizer.name, attempt, undefined, {
    grownFrom: prepared,
  });
  lastRead.set(prepared, read);
  return read;
}

/** A report's figures from the snapshot `prepared` was computed from, the head being `headId`. */
function snapshotBase(prepared: PreparedCompaction, headId: string, attempt: number): ReportBase {
  return {
    threadId: prepared.threadId,
    previousCheckpointId: headId,
    messagesBefore: prepared.messagesBefore,
    tokensBefore: prepared.tokensBefore,
    summarizer: prepared.compacted.summarizer.name,
    attempts: attempt,
    ...(prepared.providerUsage ? { providerUsage: prepared.providerUsage } : {}),
  };
}

/** Where each prepared summary's latest look found the head: its id, when, and since when it has been there at most. */
const sightings = new WeakMap<PreparedCompaction, { id: string; at: number; since: number | undefined }>();

/**
 * How long ago the head `id` was written, at most: when it appeared between two of this summary's looks, since the
 * earlier one; else the time in its id. That says when the run made the checkpoint, which a slow commit leaves behind:
 * under load, every head looked too old to write on by its id alone.
 */
function headAge(prepared: PreparedCompaction, id: string, now: number): number {
  const last = sightings.get(prepared);
  const since = last === undefined ? undefined : last.id === id ? last.since : last.at;
  sightings.set(prepared, { id, at: now, since });
  const written = now - (checkpointTime(id) ?? 0);
  return since === undefined ? written : Math.min(written, now - since);
}

/**
 * Why the head `id` may not take `prepared`'s write now, or undefined when it may (manager-options.ts: WriteWindow):
 * a head neither just written nor quiet, which a next turn may have read.
 */
function outsideWindow(settings: ManagerSettings, prepared: PreparedCompaction, id: string): string | undefined {
  const window = settings.writeWindow;
  if (!window) return undefined;
  const age = headAge(prepared, id, Date.now());
  return age > window.freshMs && age < window.quietMs
    ? `the head was written ${age} ms ago: a next turn may have read it, so the write waits for that turn's end or ${window.quietMs} ms of quiet`
    : undefined;
}

/** The head each prepared summary's latest try read afresh, while the prepared object lives (see `headFor`). */
const lastRead = new WeakMap<PreparedCompaction, Awaited<ReturnType<typeof readHead>>>();

/** The count of each of `messages`, a rebase of `compacted`: its counts, and those of what was appended after them. */
export function rebasedCounts(
  settings: Pick<ManagerSettings, "counter">,
  compacted: CompactedMessages,
  messages: readonly BaseMessage[],
): readonly number[] | undefined {
  if (!compacted.counts) return undefined;
  if (messages === compacted.messages) return compacted.counts;
  const start = compacted.messages.length;
  // The rebase keeps the compacted messages first, read again from the head: the same messages, by id.
  if (messages.length < start || !sameMessages(compacted.messages, messages.slice(0, start))) return undefined;
  return [...compacted.counts, ...settings.counter.countEach(messages.slice(start))];
}

/** The fields of a written compaction's report. */
export async function compactedFields(
  settings: ManagerSettings,
  reason: string,
  newCheckpointId: string,
  compacted: CompactedMessages,
  writeStarted: number,
  replaced: readonly BaseMessage[],
  messages: readonly BaseMessage[] = compacted.messages,
  counts: readonly number[] | undefined = messages === compacted.messages ? compacted.counts : undefined,
): Promise<
  Omit<CompactedReport, "threadId" | "previousCheckpointId" | "attempts" | "messagesBefore" | "tokensBefore">
> {
  // The head written, counted once: the compacted messages' count, with what a rebase appended to them.
  const after = await settings.calibration.count(messages, 0, counts);
  return {
    status: "compacted" as const,
    reason,
    newCheckpointId,
    messagesAfter: messages.length,
    tokensAfter: after.tokens,
    rewrittenTokens: rewrittenTokens(replaced, messages, settings.counter, after.ratio, after.each),
    summarizedMessages: compacted.plan.summarize.length,
    keptMessages: messages.length - compacted.plan.system.length - 1,
    ...(compacted.plan.keptLess ? { keptLess: compacted.plan.keptLess } : {}),
    summaryId: compacted.summary.id,
    summarizer: compacted.summarizer.name,
    ...(compacted.fallbackReason ? { fallbackReason: compacted.fallbackReason } : {}),
    ...(compacted.reflectionFailed ? { reflectionFailed: compacted.reflectionFailed } : {}),
    summarizerMs: compacted.summarizerMs,
    ...(compacted.summarizerTokens ? { summarizerTokens: compacted.summarizerTokens } : {}),
    writeMs: performance.now() - writeStarted,
  };
}

/**
 * What one try of a write makes of a report (retry.ts): done, tried again at once (the head moved, the summary still
 * its prefix), or after a pause (the head busy with a run). `prefixChanged`: the summary no longer applies.
 */
export function attemptOf(
  outcome: ApplyOutcome,
  attempt: number,
): Attempt<{ report: CompactionReport; prefixChanged: boolean }> {
  if (outcome.kind === "done") return { done: { report: outcome.report, prefixChanged: outcome.prefixChanged } };
  if (outcome.kind === "moved")
    return {
      again: {
        report: { ...outcome.base, status: "conflict", reason: `gave up after ${attempt} attempts: ${outcome.reason}` },
        prefixChanged: false,
      },
    };
  const skipped = {
    report: {
      ...outcome.base,
      status: "skipped" as const,
      code: outcome.code,
      reason: `${outcome.reason} (the prepared summary was not applied)`,
    },
    prefixChanged: false,
  };
  return outcome.waitable ? { wait: skipped } : { done: skipped };
}

/** One try of writing `prepared` onto the thread's head, under the thread's lock. */
export function applyAttempt(settings: ManagerSettings, prepared: PreparedCompaction, attempt: number) {
  return threadLocks.run(settings.store.saver, prepared.threadId, () => applyOnce(settings, prepared, attempt));
}

/** `prepared` written onto the head as it is now: the one retry policy (retry.ts), nothing nested in it. */
export async function applyPrepared(
  settings: ManagerSettings,
  prepared: PreparedCompaction,
  busyWaitMs: number,
): Promise<{ report: CompactionReport; prefixChanged: boolean }> {
  return retrying(writePolicy(settings, busyWaitMs), async (attempt) =>
    attemptOf(await applyAttempt(settings, prepared, attempt), attempt),
  );
}

async function applyOnce(
  settings: ManagerSettings,
  prepared: PreparedCompaction,
  attempt: number,
): Promise<ApplyOutcome> {
  const { threadId, compacted } = prepared;
  let probed: string | undefined;
  if (settings.writeWindow) {
    // A head outside the write window (manager-options.ts: WriteWindow) is not read at all: a busy thread's heads
    // come every few milliseconds, and reading each one whole took the worker's time from the head it could write.
    probed = await settings.store.readHeadId(threadId);
    const waiting = probed === undefined ? undefined : outsideWindow(settings, prepared, probed);
    if (waiting)
      return {
        kind: "busy",
        code: "BUSY",
        reason: waiting,
        waitable: true,
        base: snapshotBase(prepared, probed!, attempt),
      };
  }
  const { head, headId, base } = await headFor(settings, prepared, attempt, probed);
  if (head.busyReason)
    return { kind: "busy", code: busyCode(head), reason: head.busyReason, waitable: head.busyKind === "run", base };
  // Judged again once the head is read: a read slowed by a busy machine would land the write after a next turn read it.
  const waiting = outsideWindow(settings, prepared, headId);
  if (waiting) return { kind: "busy", code: "BUSY", reason: waiting, waitable: true, base };
  const moved = headId !== prepared.snapshotCheckpointId;
  const rebased = moved
    ? rebaseCompaction(compacted, prepared.prefix, head.messages, prepared.snapshotLength)
    : { ok: true as const, messages: compacted.messages, appended: 0 };
  if (!rebased.ok) {
    return {
      kind: "done",
      prefixChanged: true,
      report: { ...base, status: "conflict", reason: `the summary was discarded: ${rebased.reason}` },
    };
  }
  await turnOver();
  const writeStarted = performance.now();
  try {
    const written = await writeHistory(settings, threadId, rebased.messages, {
      expectedCheckpointId: headId,
      knownHead: head,
      metadata: {
        compaction: {
          replacedCheckpointId: headId,
          summarizedMessages: compacted.plan.summarize.length,
          summaryId: compacted.summary.id,
          ...(moved ? { rebasedFrom: prepared.snapshotCheckpointId } : {}),
        },
      },
    });
    const reason = moved
      ? `${compacted.plan.reason}; rebased onto a head ${rebased.appended} message(s) longer`
      : compacted.plan.reason;
    return {
      kind: "done",
      prefixChanged: false,
      report: {
        ...base,
        ...(await compactedFields(
          settings,
          reason,
          written.checkpointId,
          compacted,
          writeStarted,
          head.messages,
          rebased.messages,
          rebasedCounts(settings, compacted, rebased.messages),
        )),
        ...(moved
          ? { rebased: { snapshotCheckpointId: prepared.snapshotCheckpointId, appendedMessages: rebased.appended } }
          : {}),
      },
    };
  } catch (error) {
    const lost = outcomeOfWriteError(error);
    if (!lost) throw error;
    return lost.status === "skipped"
      ? { kind: "busy", code: "BUSY", reason: lost.reason, waitable: true, base }
      : { kind: "moved", reason: lost.reason, base };
  }
}
