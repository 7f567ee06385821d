/**
 * ExtractiveSummarizer: offline, deterministic, no model. It keeps what a later turn is likely to ask about —
 * names, numbers, identifiers, dates, decisions, open tasks, the key lines of tool results — within a token budget,
 * and folds the previous summary in (its lines compete with the new ones on the same scores, plus a small
 * bonus for stability). Candidates are ranked by value per token, and lines that share a template with many
 * siblings (JSON rows, log lines) are discounted, so a one-off statement of fact beats bulk.
 */

import { invalidArgument } from "../errors.js";
import { toolCallsOf } from "../history/units.js";
import { TokenCounter } from "../tokens/token-counter.js";
import { contentText, speaker } from "./render.js";
import type { SummarizeInput, Summarizer } from "./types.js";

export interface ExtractiveSummarizerOptions {
  /** Counter for the budget. @default a TokenCounter for "gpt-4o" */
  counter?: TokenCounter;
  /** Longest line kept, in characters; longer sentences are clipped. @default 240 */
  maxLineLength?: number;
}

interface Candidate {
  text: string;
  score: number;
  order: number;
  fromPrevious: boolean;
}

const NUMBER = /\b\d[\d,.:/-]*\b/g;
const PROPER_NAME = /\b[A-Z\u00C0-\u00DE][\p{Ll}]+(?:\s+[A-Z\u00C0-\u00DE][\p{Ll}]+)+/gu;
const DATE =
  /\b(?:\d{4}-\d{2}-\d{2}|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.? \d{1,2}|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day)\b/g;
const DECISION =
  /\b(?:decid|agree|approv|chose|choos|select|confirm|will|must|should|deadline|todo|to-do|next step|open|pending|blocked|plan|budget|fix|fail|error|remember|prefer|owner|assign|due)\w*/gi;
const IDENTIFIER = /\b[A-Za-z]+[_-][A-Za-z0-9_-]*\d[A-Za-z0-9_-]*\b/g;
const KEY_VALUE = /^\s*"?[\w .-]{1,40}"?\s*[:=]\s*\S/;
/** A statement of fact: a subject, a linking verb, and (checked by the caller) a name, number, date or identifier. */
const STATEMENT = /\b(?:is|was|are|were|set at|scheduled|chose|tracks?|owns?|costs?|totals?|equals?|expires?|moves? to)\b/i;
/** Punctuation of structured data (JSON, code, log fields). */
const STRUCTURE = /[{}[\]"=;<>|]/g;

function count(pattern: RegExp, text: string): number {
  return text.match(pattern)?.length ?? 0;
}

function score(text: string, role: string): number {
  let value = 0;
  const entities = count(NUMBER, text) + count(PROPER_NAME, text) + count(DATE, text) + count(IDENTIFIER, text);
  value += Math.min(3, count(NUMBER, text));
  value += 2 * Math.min(2, count(PROPER_NAME, text));
  value += 2 * Math.min(1, count(DATE, text));
  value += 2 * Math.min(2, count(DECISION, text));
  value += Math.min(2, count(IDENTIFIER, text));
  if (KEY_VALUE.test(text)) value += 1;
  if (role === "user") value += 1;
  const words = text.split(/\s+/).length;
  if (words < 4) value -= 2;
  // A sentence stating a fact about an entity is what a later turn asks about; a record of structured data much
  // less often (and it usually has many siblings, see the repetition discount in summarize()).
  if (entities > 0 && STATEMENT.test(text) && words >= 5 && /^["'(]?[A-Z\u00C0-\u00DE]/u.test(text)) value += 4;
  if (count(STRUCTURE, text) > words / 2) value -= 2;
  return value;
}

/** The template of a line: digits, quoted strings and identifiers abstracted, so sibling records share one shape. */
function shapeOf(text: string): string {
  return text
    .replace(/"[^"]*"/g, "s")
    .replace(/\b[A-Za-z]+[_-][A-Za-z0-9_-]*\d[A-Za-z0-9_-]*\b/g, "i")
    .replace(/\d+(?:[.,:/-]\d+)*/g, "0")
    .replace(/\s+/g, " ")
    .slice(0, 48);
}

function splitPieces(text: string): string[] {
  return text
    .split(/\n+|(?<=[.!?])\s+|(?<=;)\s+(?=[A-Z\u00C0-\u00DE"'(\[])|(?<=\},)(?=\{)/u)
    .map((piece) => piece.replace(/\s+/g, " ").trim())
    .filter((piece) => piece.length > 0);
}

export class ExtractiveSummarizer implements Summarizer {
  readonly name = "extractive";
  readonly model = undefined;
  private readonly counter: TokenCounter;
  private readonly maxLineLength: number;

  constructor({ counter, maxLineLength = 240 }: ExtractiveSummarizerOptions = {}) {
    if (!Number.isInteger(maxLineLength) || maxLineLength < 40) {
      throw invalidArgument("maxLineLength", maxLineLength, "an integer >= 40");
    }
    this.counter = counter ?? new TokenCounter();
    this.maxLineLength = maxLineLength;
  }

  async summarize({ previousSummary, messages, tokenBudget }: SummarizeInput): Promise<string> {
    const candidates: Candidate[] = [];
    const seen = new Set<string>();
    let order = 0;
    const add = (text: string, value: number, fromPrevious: boolean) => {
      const clipped = text.length > this.maxLineLength ? `${text.slice(0, this.maxLineLength - 1)}…` : text;
      const key = clipped.toLowerCase();
      if (seen.has(key)) return;
      seen.add(key);
      candidates.push({ text: clipped, score: value, order: order++, fromPrevious });
    };

    if (previousSummary) {
      for (const line of previousSummary.split("\n")) {
        const text = line.replace(/^[-*]\s*/, "").trim();
        if (text.length === 0 || text.startsWith("Covers ") || text.endsWith(":")) continue;
        // Scored like new content (the role prefix is kept), with a small bonus for stability across compactions.
        const role = /^\[user\]/.test(text) ? "user" : "";
        add(text, score(text.replace(/^\[[^\]]+\]\s*/, ""), role) + 1, true);
      }
    }
    const stats = { messages: messages.length, user: 0, toolCalls: 0, tools: new Set<string>(), agents: new Set<string>() };
    for (const message of messages) {
      const who = speaker(message);
      const type = message.getType();
      if (type === "human") stats.user++;
      if (type === "ai" && message.name) stats.agents.add(message.name);
      for (const call of toolCallsOf(message)) {
        stats.toolCalls++;
        stats.tools.add(call.name);
        if (call.name.startsWith("transfer_")) continue;
        const args = JSON.stringify((call as { args?: unknown }).args ?? {});
        add(`${who} called ${call.name}(${args})`, score(args, "") + 1, false);
      }
      const pieces = splitPieces(contentText(message)).filter((piece) => !/^Successfully transferred/.test(piece));
      // Lines sharing a template with many siblings (JSON rows, log lines, metrics) are each worth less; a line that
      // stands out from its siblings (a NOTE in a log) keeps its full score.
      const pieceShapes = pieces.map(shapeOf);
      const shapes = new Map<string, number>();
      for (const shape of pieceShapes) shapes.set(shape, (shapes.get(shape) ?? 0) + 1);
      for (const [index, piece] of pieces.entries()) {
        const siblings = shapes.get(pieceShapes[index]!)!;
        const discount = siblings > 2 ? Math.log2(siblings) * 2 : 0;
        add(`[${who}] ${piece}`, score(piece, type === "human" ? "user" : type) - discount, false);
      }
    }

    const header = `Covers ${stats.messages} messages: ${stats.user} user messages, ${stats.toolCalls} tool calls${
      stats.tools.size ? ` (${[...stats.tools].sort().join(", ")})` : ""
    }${stats.agents.size ? `; agents: ${[...stats.agents].sort().join(", ")}` : ""}.`;
    let used = this.counter.countText(header) + 8;
    // Ranked by value per token (square-root damped): a short sentence stating a fact beats a long paragraph that
    // collects the same bonuses by sheer length.
    const costs = new Map(candidates.map((candidate) => [candidate, this.counter.countText(candidate.text) + 2]));
    const density = (candidate: Candidate) => (candidate.score <= 0 ? candidate.score : candidate.score / Math.sqrt(costs.get(candidate)!));
    const ranked = [...candidates].sort((a, b) => density(b) - density(a) || a.order - b.order);
    const chosen: Candidate[] = [];
    for (const candidate of ranked) {
      const cost = costs.get(candidate)!;
      if (used + cost > tokenBudget) continue;
      chosen.push(candidate);
      used += cost;
    }
    chosen.sort((a, b) => a.order - b.order);
    const earlier = chosen.filter((candidate) => candidate.fromPrevious).map((candidate) => `- ${candidate.text}`);
    const recent = chosen.filter((candidate) => !candidate.fromPrevious).map((candidate) => `- ${candidate.text}`);
    return [
      header,
      ...(earlier.length ? ["Earlier:", ...earlier] : []),
      ...(recent.length ? ["Since then:", ...recent] : []),
    ].join("\n");
  }
}
