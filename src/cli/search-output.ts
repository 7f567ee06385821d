/**
 * The script's `search` output for a person: one block per hit, best first — the hit's own line, where it is kept
 * (message and checkpoint), then the messages around it, each message printed once. A neighbour that is itself a
 * hit, or that an earlier block already showed, is named instead of repeated.
 */
import { formatDay } from "../messages/date.js";
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

export function searchLines(hits: readonly SearchHit[], query: string): string[] {
  if (hits.length === 0)
    return [`No compacted message matches ${JSON.stringify(query)}. Try other words (names, places, numbers).`];
  const hitNumber = new Map(hits.map((hit, index) => [hit.messageId, index + 1]));
  const shown = new Map<string, number>();
  const lines = [`${hits.length} compacted message(s) match ${JSON.stringify(query)}, best first:`];
  for (const [index, hit] of hits.entries()) {
    const number = index + 1;
    lines.push(
      "",
      `${number}. ${who(hit)}  (score ${hit.score.toFixed(2)})`,
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
