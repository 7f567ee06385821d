/**
 * The core of an utterance: what a summary line keeps of one thing a person or an agent said.
 *
 * A summary line stands for a message. Kept sentence by sentence, a line spends its tokens unevenly: one message
 * gets every sentence that happens to be dense, another only its densest one, too little to say what the message
 * said. Kept as a core, each message that makes it into the summary keeps its densest sentences, in their order,
 * until they hold most of what it says (CORE_SHARE, 70% of its value), and nothing more: the line says what the message
 * said at the fewest tokens, and the message competes for the budget with its whole value against that cost.
 *
 * A core longer than MAX_CORE_SENTENCE_LENGTHS clipped sentences is no line of a summary but a document (a pasted
 * report, a transcript handed over as one message): its sentences stay separate candidates, as before cores.
 *
 * Only utterances (user and AI messages written as one line of text) are cut to a core; a message of several lines
 * (a list, a report, a summary handed back in) is a document too. A tool's result is a set of records that each stand
 * alone (one row among many is a fact of its own), so its sentences stay separate candidates; so do the lines
 * carried from a previous summary (each already a core).
 *
 * On the retention benchmark (real conversations; `--budgets 0.2,0.25,0.3,0.35,0.4,0.5`), cores kept 69.4% of the
 * evidence on average against 65.2% sentence by sentence, and 52.3% of the answers against 50.3%; the generated
 * agent threads (bench:peers) kept as many facts or more at every size. Two thirds kept a little more evidence
 * (70.6%) but fewer answers (50.6%, and 1.1 points fewer than before at the 50% budget), so the share is 70%.
 */
import type { Candidate } from "./candidates.js";

/** A core holds at least this share of its message's value. */
export const CORE_SHARE = 0.7;
/** A core longer than this many times the longest sentence kept (`maxLineLength`) stays sentence by sentence. */
export const MAX_CORE_SENTENCE_LENGTHS = 3;

/**
 * The candidates with each utterance's sentences replaced by its core: one candidate carrying the message's whole
 * value, the core's sentences joined in their order, at the position of its first sentence. `tokens` prices a
 * sentence; `maxLineLength` is the longest sentence kept. Other candidates pass through unchanged; the result is in chronological order.
 */
export function* coreSteps(
  candidates: readonly Candidate[],
  tokens: (text: string) => number,
  maxLineLength: number,
): Generator<void, Candidate[]> {
  const byLine = new Map<number, Candidate[]>();
  for (const candidate of candidates) {
    const group = byLine.get(candidate.line);
    if (group) group.push(candidate);
    else byLine.set(candidate.line, [candidate]);
  }
  const result: Candidate[] = [];
  for (const group of byLine.values()) {
    const utterance = group.filter((candidate) => candidate.utterance);
    result.push(...group.filter((candidate) => !candidate.utterance));
    if (utterance.length <= 1) {
      result.push(...utterance);
      continue;
    }
    const total = utterance.reduce((sum, candidate) => sum + candidate.value, 0);
    const density = new Map(
      utterance.map((candidate) => [candidate, candidate.value / Math.max(1, tokens(candidate.text))]),
    );
    const ranked = [...utterance].sort((a, b) => density.get(b)! - density.get(a)! || a.order - b.order);
    const core: Candidate[] = [];
    let held = 0;
    for (const candidate of ranked) {
      if (held >= CORE_SHARE * total) break;
      core.push(candidate);
      held += candidate.value;
    }
    core.sort((a, b) => a.order - b.order);
    const text = core.map((candidate) => candidate.text).join(" ");
    if (text.length > MAX_CORE_SENTENCE_LENGTHS * maxLineLength) {
      result.push(...utterance);
      continue;
    }
    result.push({
      ...core[0]!,
      text,
      content: new Set(core.flatMap((candidate) => [...candidate.content])),
      value: total,
    });
    yield;
  }
  return result.sort((a, b) => a.order - b.order);
}
