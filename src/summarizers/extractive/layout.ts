/**
 * The text of an extractive summary, and reading it back when it is folded into the next one:
 *
 *   Covers 366 messages, 8 May 2023 – 20 August 2023; agents: Melanie.
 *   8 May 2023:
 *   - Caroline: I went to a LGBTQ support group yesterday and it was so powerful.
 *   9 June 2023:
 *   - Melanie: I ran a charity race for mental health last Saturday.
 *
 * The header states the whole coverage (the previous summary's included), never just the last segment. When the
 * covered messages span more than one day, every line stands under its message's date, so a dated fact stays dated
 * ("yesterday" can still be resolved); a heading per day costs far fewer tokens than a date on every line (on real
 * conversations the saved tokens held 3 more points of the evidence, npm run bench:retention). A one-day thread
 * states its day once, in the header.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { formatDay } from "../../messages/date.js";

export interface SummaryLine {
  text: string;
  speaker?: string;
  date?: Date;
}

export interface Coverage {
  messages: number;
  first?: Date;
  last?: Date;
  tools: Set<string>;
  agents: Set<string>;
}

/** Who said it: the message's name ("Caroline", "coder"), else its role; a tool result says which tool. */
export function speakerLabel(message: BaseMessage): string {
  const type = message.getType();
  if (type === "tool") return `${message.name ?? "tool"} result`;
  if (message.name) return message.name;
  return type === "human" ? "user" : type === "ai" ? "assistant" : type;
}

const DAY = String.raw`\d{1,2} [A-Z][a-z]+ \d{4}`;
const DAY_HEADING = new RegExp(String.raw`^(${DAY}):$`);
const LINE = new RegExp(String.raw`^[-*]\s+(?:\[(${DAY})\]\s+)?(?:([^:"{}\[\]\n]{1,60}): )?(.+)$`);
const HEADER = new RegExp(
  String.raw`^Covers (\d+) messages(?:, (${DAY})(?: – (${DAY}))?)?(?:; tools: ([^;]*?))?(?:; agents: ([^;]*?))?\.$`,
);

function parseDay(text: string | undefined): Date | undefined {
  if (!text) return undefined;
  const date = new Date(`${text} UTC`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** The lines and coverage of a previous summary (one written by this summarizer, or any bulleted text). */
export function parseSummary(text: string): { lines: SummaryLine[]; coverage?: Coverage } {
  const lines: SummaryLine[] = [];
  let coverage: Coverage | undefined;
  let day: Date | undefined;
  for (const raw of text.split("\n")) {
    const trimmed = raw.trim();
    const heading = DAY_HEADING.exec(trimmed);
    if (heading) {
      day = parseDay(heading[1]);
      continue;
    }
    if (!trimmed || trimmed.startsWith("#") || (trimmed.endsWith(":") && !trimmed.startsWith("-"))) continue;
    const header = HEADER.exec(trimmed);
    if (header) {
      coverage = {
        messages: Number(header[1]),
        first: parseDay(header[2]),
        last: parseDay(header[3] ?? header[2]),
        tools: new Set(header[4] ? header[4].split(", ") : []),
        agents: new Set(header[5] ? header[5].split(", ") : []),
      };
      continue;
    }
    const match = LINE.exec(trimmed);
    const date = match?.[1] ? parseDay(match[1]) : day;
    if (match)
      lines.push({ text: match[3]!.trim(), ...(match[2] ? { speaker: match[2] } : {}), ...(date ? { date } : {}) });
    else if (!/^Covers \d+ messages/.test(trimmed)) lines.push({ text: trimmed, ...(date ? { date } : {}) });
  }
  return { lines, coverage };
}

/** Same calendar day (UTC). */
function sameDay(a: Date, b: Date): boolean {
  return formatDay(a) === formatDay(b);
}

export function renderHeader(coverage: Coverage): string {
  let header = `Covers ${coverage.messages} messages`;
  if (coverage.first && coverage.last) {
    header += sameDay(coverage.first, coverage.last)
      ? `, ${formatDay(coverage.first)}`
      : `, ${formatDay(coverage.first)} – ${formatDay(coverage.last)}`;
  }
  if (coverage.tools.size > 0) header += `; tools: ${[...coverage.tools].sort().join(", ")}`;
  if (coverage.agents.size > 0) header += `; agents: ${[...coverage.agents].sort().join(", ")}`;
  return `${header}.`;
}

/** One line of the summary, without its date (see renderLines). */
export function renderLine(line: SummaryLine): string {
  return `- ${line.speaker ? `${line.speaker}: ` : ""}${line.text}`;
}

/** The lines in order; when `dated`, each day's lines under a heading with the day ("8 May 2023:"). */
export function renderLines(lines: readonly SummaryLine[], dated: boolean): string[] {
  const rendered: string[] = [];
  let heading: string | undefined;
  for (const line of lines) {
    if (dated) {
      const day = line.date ? `${formatDay(line.date)}:` : "Undated:";
      if (day !== heading) rendered.push((heading = day));
    }
    rendered.push(renderLine(line));
  }
  return rendered;
}

/** True when the coverage spans more than one calendar day. */
export function spansDays(coverage: Coverage): boolean {
  return coverage.first !== undefined && coverage.last !== undefined && !sameDay(coverage.first, coverage.last);
}
