/**
 * Messages that stand beside a summary covering them. A summary's provenance names what it took out of the head (its
 * covered ids, and the summary it folded in); a head that still holds one of those got it back from outside the
 * compaction:
 * - after the summary: a run that read the thread before an out-of-band compaction committed and started after it
 *   (langchain's createAgent reads the state first and hands it back as the run's input), whose stale messages the
 *   id-merging reducer appended. They are copies of what the transcript holds: the runtime drops them.
 * - before the summary: the graph's parent merged the compacted subgraph's messages by id (createSupervisor without
 *   `stateSchema: CompactionAgentState`), so the removal never reached the parent's head: compaction cannot shrink
 *   this head, and the runtime says so.
 */
import { provenanceOf } from "./provenance.js";

export interface CoveredCopies {
  /** Indexes of messages after a summary that covers them (stale copies, to drop). */
  after: number[];
  /** Whether a message stands before a summary that covers it. */
  before: boolean;
}

export function coveredCopies(
  messages: ReadonlyArray<{ id?: string | null; additional_kwargs?: unknown }>,
): CoveredCopies {
  const result: CoveredCopies = { after: [], before: false };
  // Most calls hold no summary, or one at the front: the ids are mapped only when a summary covers something.
  if (!messages.some((message) => provenanceOf(message))) return result;
  const at = new Map<string, number>();
  messages.forEach((message, index) => {
    if (typeof message.id === "string") at.set(message.id, index);
  });
  const stale = new Set<number>();
  messages.forEach((message, index) => {
    const provenance = provenanceOf(message);
    if (!provenance) return;
    for (const id of [
      ...provenance.coveredIds,
      ...(provenance.previousSummaryId ? [provenance.previousSummaryId] : []),
    ]) {
      const where = at.get(id);
      if (where === undefined) continue;
      if (where > index) stale.add(where);
      else result.before = true;
    }
  });
  result.after = [...stale].sort((a, b) => a - b);
  return result;
}
