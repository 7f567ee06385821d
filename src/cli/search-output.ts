/**
 * The script's `search` output for a person: one block per hit, best first — the hit's own line, where it is kept
 * (message and checkpoint), then the messages around it, each message printed once. A neighbour that is itself a
 * hit, or that an earlier block already showed, is named instead of repeated.
 */
import { formatDay } from "../messages/date.js";
import { wordsOf } from "../messages/words.js";
import { searchTerms } from "../store/recall-index/query.js";
import type { RecallMessage, SearchHit } from "../store/recall-index/types.js";

const TEXT_WIDTH = 240;

function who(message: RecallMessage): string {
  const date = message.date ? `${formatDay(new Date(message.date))} ` : "";
  return `${date}${message.name ? `${message.name} (${message.role})` : message.role}`;
}

function text(message: RecallMessage, width = TEXT_WIDTH): string {
  const flat = message.text.replace(/\s+/g, " ").trim();
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
}

/** A score as it compares: two decimals, or two significant digits for one under 0.01 (never a bare 0.00). */
function score(value: number): string {
  return value >= 0.01 || value === 0 ? value.toFixed(2) : value.toPrecision(2);
}

export function searchLines(hits: readonly SearchHit[], query: string): string[] {
  if (hits.length === 0)
    return [`No compacted message matches ${JSON.stringify(query)}. Try other words (names, places, numbers).`];
  const hitNumber = new Map(hits.map((hit, index) => [hit.messageId, index + 1]));
  const shown = new Map<string, number>();
  const lines = [`${hits.length} compacted message(s) match ${JSON.stringify(query)}, best first:`];
  const terms = searchTerms(query);
  // A message is also found by the words of the one before it (a question and its answer span messages).
  const ownWords = (hit: SearchHit) =>
    wordsOf(hit.text).some((word) => terms.some((term) => word.startsWith(term)))
      ? ""
      : ", by the words of the message before it";
  for (const [index, hit] of hits.entries()) {
    const number = index + 1;
    lines.push(
      "",
      `${number}. ${who(hit)}  (score ${score(hit.score)}${ownWords(hit)})`,
      `   ${text(hit)}`,
      `   message ${hit.messageId} · checkpoint ${hit.checkpointId}`,
    );
    shown.set(hit.messageId, number);
    const around = (label: string, messages: readonly RecallMessage[]) => {
      let previous: string | undefined;
      for (const message of messages) {
        const other = hitNumber.get(message.messageId);
        const earlier = shown.get(message.messageId);
        const body =
          other !== undefined && other !== number
            ? `${who(message)}: (hit ${other})`
            : earlier !== undefined && earlier !== number
              ? `${who(message)}: (shown under hit ${earlier})`
              : `${who(message)}: ${text(message, 160)}`;
        if (body === previous) continue;
        lines.push(`   ${label} ${body}`);
        previous = body;
        if (!shown.has(message.messageId)) shown.set(message.messageId, number);
      }
    };
    around("before", hit.before);
    around("after ", hit.after);
  }
  return lines;
}
