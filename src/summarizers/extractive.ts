/**
 * ExtractiveSummarizer: offline, deterministic, no model and no model files. It keeps the sentences that say the
 * most that is distinctive in this thread, within a token budget, for conversations and tool-heavy agent threads
 * alike, in any language:
 *
 * - salience from the thread's own vocabulary: rare content words, numbers, identifiers (extractive/vocabulary.ts);
 * - filler suppressed: greetings, thanks, agreement, questions with no content (extractive/candidates.ts);
 * - what people said kept in note style, without the thread's grammar words (extractive/compact.ts);
 * - near-duplicates merged, value per token, a fair share of the budget for the new segment against the lines
 *   carried from the previous summary (extractive/select.ts);
 * - each line with its speaker, under its date when the thread spans several days; a header stating the whole
 *   coverage, the previous summary's included (extractive/layout.ts).
 *
 * A running summary folds the previous one in: its lines are candidates again, scored like new ones.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { argument } from "../options/check.js";
import { flag, integer, number } from "../options/rules.js";
import { toolCallsOf } from "../messages/tool-calls.js";
import { messageDate } from "../messages/date.js";
import { TokenCounter } from "../tokens/token-counter.js";
import { candidateSteps, type Candidate } from "./extractive/candidates.js";
import {
  parseSummary,
  renderHeader,
  renderLine,
  renderLines,
  spansDays,
  type Coverage,
  type SummaryLine,
} from "./extractive/layout.js";
import { distinctSteps, selectionSteps, type Priced } from "./extractive/select.js";
import { sliced } from "../slices.js";
import { coreSteps } from "./extractive/cores.js";
import type { SummarizeInput, Summarizer } from "./types.js";

export interface ExtractiveSummarizerOptions {
  /** Counter for the budget. @default a TokenCounter for "gpt-4o" */
  counter?: TokenCounter;
  /** Longest sentence kept, in characters; longer ones are clipped at a word. @default 240 */
  maxLineLength?: number;
  /**
   * How many times a message of the newest segment counts against a message the previous summary covers, when the
   * budget is split between them. 1 (the default): every covered message has the same claim, which keeps the most
   * of a conversation overall; 2 keeps more of the latest messages at the cost of older ones (docs/benchmarks.md
   * gives both, measured). @default 1
   */
  recencyWeight?: number;
  /**
   * Keep what a person or an agent said without the thread's grammar words — the words in a tenth or more of its
   * messages ("the", "a", "I", "was") — names, numbers and negations always kept (extractive/compact.ts): the same
   * budget then holds more of a conversation, in note style (docs/benchmarks.md measures both). Tool results and
   * multi-line messages are kept as written either way. `false`: every sentence as written. @default true
   */
  compactSentences?: boolean;
}

function earliest(a: Date | undefined, b: Date | undefined): Date | undefined {
  if (!a) return b;
  if (!b) return a;
  return a.getTime() <= b.getTime() ? a : b;
}

function latest(a: Date | undefined, b: Date | undefined): Date | undefined {
  if (!a) return b;
  if (!b) return a;
  return a.getTime() >= b.getTime() ? a : b;
}

/** What the summary stands for: the previous summary's coverage plus the segment. */
function coverageOf(
  previous: { lines: SummaryLine[]; coverage?: Coverage },
  previousMessages: number,
  messages: readonly BaseMessage[],
): Coverage {
  const coverage: Coverage = {
    messages: previousMessages + messages.length,
    first: previous.coverage?.first,
    last: previous.coverage?.last,
    tools: new Set(previous.coverage?.tools),
    agents: new Set(previous.coverage?.agents),
  };
  for (const line of previous.lines) {
    coverage.first = earliest(coverage.first, line.date);
    coverage.last = latest(coverage.last, line.date);
  }
  for (const message of messages) {
    const date = messageDate(message);
    coverage.first = earliest(coverage.first, date);
    coverage.last = latest(coverage.last, date);
    if (message.getType() === "ai" && message.name) coverage.agents.add(message.name);
    for (const call of toolCallsOf(message)) if (!call.name.startsWith("transfer_")) coverage.tools.add(call.name);
  }
  return coverage;
}

/** The candidate with the most content, then the most words, then the earliest. */
function bestOf(candidates: readonly Candidate[]): Candidate {
  return candidates.reduce((best, candidate) =>
    candidate.value > best.value || (candidate.value === best.value && candidate.text.length > best.text.length)
      ? candidate
      : best,
  );
}

export class ExtractiveSummarizer implements Summarizer {
  readonly name = "extractive";
  readonly model = undefined;
  /** Any length: it selects sentences (and leaves words out), it does not generate them. */
  readonly maxTokens = Number.POSITIVE_INFINITY;
  private readonly counter: TokenCounter;
  private readonly maxLineLength: number;
  private readonly recencyWeight: number;
  private readonly compactSentences: boolean;

  constructor({
    counter,
    maxLineLength = 240,
    recencyWeight = 1,
    compactSentences = true,
  }: ExtractiveSummarizerOptions = {}) {
    argument("maxLineLength", maxLineLength, integer(40));
    argument("recencyWeight", recencyWeight, number("a number from 1 to 100", { from: 1, to: 100 }));
    argument("compactSentences", compactSentences, flag);
    this.recencyWeight = recencyWeight;
    this.compactSentences = compactSentences;
    this.counter = counter ?? new TokenCounter();
    this.maxLineLength = maxLineLength;
  }

  async summarize({
    previousSummary,
    previousCoveredMessages,
    messages,
    tokenBudget,
  }: SummarizeInput): Promise<string> {
    const previous = previousSummary ? parseSummary(previousSummary) : { lines: [] };
    const previousMessages = previousCoveredMessages ?? previous.coverage?.messages ?? previous.lines.length;
    const coverage = coverageOf(previous, previousMessages, messages);
    let header = renderHeader(coverage);
    if (this.counter.countText(header) > tokenBudget / 2)
      header = renderHeader({ ...coverage, tools: new Set(), agents: new Set() });
    const dated = spansDays(coverage);
    // The long loops run in slices that give the event loop back (slices.ts): the same steps, the same summary.
    const all = await sliced(candidateSteps(previous.lines, messages, this.maxLineLength, this.compactSentences));
    let candidates = await sliced(distinctSteps(all));
    // A segment of nothing but small talk still shows its best sentence: a summary never stands for messages with
    // nothing of them.
    if (candidates.length === 0 && all.length > 0) candidates = [bestOf(all)];
    // Each utterance as its core: its densest sentences, up to most of what it says (extractive/cores.ts).
    candidates = await sliced(coreSteps(candidates, (text) => this.counter.countText(text), this.maxLineLength));
    // What a line costs besides its sentences: the bullet and the speaker (a day heading is shared by many lines).
    const lineCost = Math.max(
      1,
      ...[...new Set(candidates.map((candidate) => candidate.speaker))].map((speaker) =>
        this.counter.countText(renderLine({ text: "", speaker })),
      ),
    );
    // The new segment's share of the budget: its messages against every covered one, each new message counted
    // recencyWeight times.
    const weighted = this.recencyWeight * messages.length;
    const shareNew = weighted / Math.max(1, previousMessages + weighted);
    const available = tokenBudget - this.counter.countText(header) - 1;
    let chosen = await sliced(selectionSteps(candidates, available, shareNew, this.counter, lineCost));
    let text = this.render(header, chosen, dated);
    // The line costs above are estimates; drop the least dense sentences until the text is within the budget.
    while (chosen.length > 0 && this.counter.countText(text) > tokenBudget) {
      const weakest = chosen.reduce((low, candidate) =>
        candidate.value / candidate.tokens < low.value / low.tokens ? candidate : low,
      );
      chosen = chosen.filter((candidate) => candidate !== weakest);
      text = this.render(header, chosen, dated);
    }
    return text;
  }

  private render(header: string, chosen: readonly Priced[], dated: boolean): string {
    const lines = new Map<number, Priced[]>();
    for (const candidate of chosen) lines.set(candidate.line, [...(lines.get(candidate.line) ?? []), candidate]);
    const summaryLines: SummaryLine[] = [...lines.values()].map((sentences) => ({
      text: sentences.map((sentence) => sentence.text).join(" "),
      speaker: sentences[0]!.speaker,
      date: sentences[0]!.date,
    }));
    return [header, ...renderLines(summaryLines, dated)].join("\n");
  }
}
