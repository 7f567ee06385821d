/**
 * ExtractiveSummarizer: offline, deterministic, no model. It keeps what a later turn is likely to ask about —
 * names, numbers, identifiers, dates, decisions, open tasks, the key lines of tool results — within a token budget,
 * and folds the previous summary in (its lines compete for the budget with a bonus, so facts survive repeated
 * compactions instead of decaying).
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

function count(pattern: RegExp, text: string): number {
  return text.match(pattern)?.length ?? 0;
}

function score(text: string, role: string): number {
  let value = 0;
  value += Math.min(3, count(NUMBER, text));
  value += 2 * Math.min(2, count(PROPER_NAME, text));
  value += 2 * Math.min(1, count(DATE, text));
  value += 2 * Math.min(2, count(DECISION, text));
  value += Math.min(2, count(IDENTIFIER, text));
  if (KEY_VALUE.test(text)) value += 1;
  if (role === "user") value += 1;
  if (text.split(/\s+/).length < 4) value -= 2;
  return value;
}

function splitPieces(text: string): string[] {
  return text
    .split(/\n+|(?<=[.!?;])\s+(?=[A-Z\u00C0-\u00DE"'(\[])|(?<=\},)(?=\{)/u)
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
        add(text, score(text, "") + 3, true);
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
      for (const piece of splitPieces(contentText(message))) {
        if (/^Successfully transferred/.test(piece)) continue;
        add(`[${who}] ${piece}`, score(piece, type === "human" ? "user" : type), false);
      }
    }

    const header = `Covers ${stats.messages} messages: ${stats.user} user messages, ${stats.toolCalls} tool calls${
      stats.tools.size ? ` (${[...stats.tools].sort().join(", ")})` : ""
    }${stats.agents.size ? `; agents: ${[...stats.agents].sort().join(", ")}` : ""}.`;
    let used = this.counter.countText(header) + 8;
    const ranked = [...candidates].sort((a, b) => b.score - a.score || a.order - b.order);
    const chosen: Candidate[] = [];
    for (const candidate of ranked) {
      const cost = this.counter.countText(candidate.text) + 2;
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
