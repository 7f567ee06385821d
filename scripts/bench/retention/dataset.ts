/**
 * Loading long conversations with questions in the LoCoMo schema (see ../shared/eval/README.md): sessions of turns
 * `{ speaker, dia_id, text, blip_caption? }` with a date per session, and questions whose `evidence` names the turns
 * holding the answer. Only `conversation` and `qa` are read: the dataset's own summaries and observations would leak
 * the answers, so they are never loaded into anything the benchmark builds.
 */
import { readFileSync } from "node:fs";

export interface DialogueTurn {
  /** The dataset's turn id, e.g. "D3:12". */
  id: string;
  speaker: string;
  /** What the speaker said, with a shared image's caption appended as "[shares …]". */
  text: string;
  /** 1-based session number. */
  session: number;
  /** ISO 8601 date-time of the session, when its date parses. */
  date?: string;
  /** Position in the whole conversation, 0-based. */
  index: number;
}

export interface DialogueQuestion {
  question: string;
  answer: string;
  /** Evidence turn ids, repaired and checked against the conversation. */
  evidence: string[];
  category: number;
}

export interface Dialogue {
  id: string;
  speakerA: string;
  speakerB: string;
  turns: DialogueTurn[];
  questions: DialogueQuestion[];
  /** Evidence ids that needed repair ("D8:6; D9:17" → two ids, "D30:05" → "D30:5", "D:11:26" → "D11:26"). */
  repairedEvidence: number;
  /** Evidence ids that name no turn of the conversation, dropped (a question left with none is skipped). */
  droppedEvidence: number;
}

const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

/** "1:56 pm on 8 May, 2023" → "2023-05-08T13:56:00.000Z"; undefined when it does not parse. */
export function parseSessionDate(text: unknown): string | undefined {
  if (typeof text !== "string") return undefined;
  const match = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(text);
  if (!match) return undefined;
  const [, hour, minute, half, day, monthName, year] = match;
  const month = MONTHS.findIndex((name) => name.startsWith(monthName!.toLowerCase().slice(0, 3)));
  if (month < 0) return undefined;
  const hours = (Number(hour) % 12) + (half!.toLowerCase() === "pm" ? 12 : 0);
  return new Date(Date.UTC(Number(year), month, Number(day), hours, Number(minute))).toISOString();
}

/** Splits and normalizes one evidence entry; `repaired` is true when it was not a plain "D<session>:<turn>". */
export function repairEvidence(raw: string): { ids: string[]; repaired: boolean } {
  if (/^D\d+:\d+$/.test(raw) && !/:0\d/.test(raw)) return { ids: [raw], repaired: false };
  const ids = raw
    .split(/[;,\s]+/)
    .filter(Boolean)
    .map((part) => /^D:?(\d+):0*(\d+)$/.exec(part))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => `D${Number(match[1])}:${Number(match[2])}`);
  return { ids, repaired: true };
}

interface RawTurn {
  speaker?: unknown;
  dia_id?: unknown;
  text?: unknown;
  blip_caption?: unknown;
}

function sessionNumbers(conversation: Record<string, unknown>): number[] {
  return Object.keys(conversation)
    .map((key) => /^session_(\d+)$/.exec(key))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => Number(match[1]))
    .sort((a, b) => a - b);
}

export function parseDialogues(data: unknown, source = "data"): Dialogue[] {
  if (!Array.isArray(data)) throw new Error(`${source}: expected an array of conversations`);
  return data.map((entry, position) => {
    const record = entry as { sample_id?: unknown; conversation?: Record<string, unknown>; qa?: unknown };
    const conversation = record.conversation;
    if (typeof conversation !== "object" || conversation === null)
      throw new Error(`${source}[${position}]: no conversation`);
    const speakerA = String(conversation.speaker_a ?? "A");
    const speakerB = String(conversation.speaker_b ?? "B");
    const turns: DialogueTurn[] = [];
    for (const session of sessionNumbers(conversation)) {
      const date = parseSessionDate(conversation[`session_${session}_date_time`]);
      for (const raw of (conversation[`session_${session}`] as RawTurn[] | undefined) ?? []) {
        if (typeof raw.text !== "string" || typeof raw.dia_id !== "string") continue;
        const caption =
          typeof raw.blip_caption === "string" && raw.blip_caption.trim() ? ` [shares ${raw.blip_caption.trim()}]` : "";
        turns.push({
          id: raw.dia_id,
          speaker: String(raw.speaker),
          text: `${raw.text}${caption}`,
          session,
          ...(date ? { date } : {}),
          index: turns.length,
        });
      }
    }
    const known = new Set(turns.map((turn) => turn.id));
    let repairedEvidence = 0;
    let droppedEvidence = 0;
    const questions: DialogueQuestion[] = [];
    for (const qa of Array.isArray(record.qa) ? (record.qa as Array<Record<string, unknown>>) : []) {
      const evidence: string[] = [];
      for (const raw of Array.isArray(qa.evidence) ? qa.evidence : []) {
        const { ids, repaired } = repairEvidence(String(raw));
        if (repaired) repairedEvidence++;
        for (const id of ids) {
          if (known.has(id)) evidence.push(id);
          else droppedEvidence++;
        }
      }
      if (evidence.length === 0 || qa.answer === undefined || typeof qa.question !== "string") continue;
      questions.push({
        question: qa.question,
        answer: String(qa.answer),
        evidence: [...new Set(evidence)],
        category: Number(qa.category),
      });
    }
    return {
      id: String(record.sample_id ?? `conversation-${position}`),
      speakerA,
      speakerB,
      turns,
      questions,
      repairedEvidence,
      droppedEvidence,
    };
  });
}

export function loadDialogues(path: string): Dialogue[] {
  return parseDialogues(JSON.parse(readFileSync(path, "utf8")), path);
}
