/**
 * The extractive summary itself (ExtractiveSummarizer's algorithm, summarizers/extractive.ts describes it): loaded on
 * the first summary, so an application that summarizes with a model never loads it.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { toolCallsOf } from "../../messages/tool-calls.js";
import { messageDate } from "../../messages/date.js";
import { candidateSteps, type Candidate } from "./candidates.js";
import {
  parseSummary,
  renderHeader,
  renderLine,
  renderLines,
  spansDays,
  type Coverage,
  type SummaryLine,
} from "./layout.js";
import { distinctSteps, selectionSteps, type Priced } from "./select.js";
import { sliced } from "../../slices.js";
import { coreSteps } from "./cores.js";
import type { SummarizeInput } from "../types.js";
import type { ExtractiveSettings } from "./options.js";

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

/** The summary of `input` within its budget, as an ExtractiveSummarizer with `settings` writes it. */
export async function summarizeExtractive(
  settings: ExtractiveSettings,
  { previousSummary, previousCoveredMessages, messages, tokenBudget }: SummarizeInput,
): Promise<string> {
  const previous = previousSummary ? parseSummary(previousSummary) : { lines: [] };
  const previousMessages = previousCoveredMessages ?? previous.coverage?.messages ?? previous.lines.length;
  const coverage = coverageOf(previous, previousMessages, messages);
  let header = renderHeader(coverage);
  if (settings.counter.countText(header) > tokenBudget / 2)
    header = renderHeader({ ...coverage, tools: new Set(), agents: new Set() });
  const dated = spansDays(coverage);
  // The long loops run in slices that give the event loop back (slices.ts): the same steps, the same summary.
  const all = await sliced(candidateSteps(previous.lines, messages, settings.maxLineLength, settings.compactSentences));
  let candidates = await sliced(distinctSteps(all));
  // A segment of nothing but small talk still shows its best sentence: a summary never stands for messages with
  // nothing of them.
  if (candidates.length === 0 && all.length > 0) candidates = [bestOf(all)];
  // Each utterance as its core: its densest sentences, up to most of what it says (extractive/cores.ts).
  candidates = await sliced(coreSteps(candidates, (text) => settings.counter.countText(text), settings.maxLineLength));
  // What a line costs besides its sentences: the bullet and the speaker (a day heading is shared by many lines).
  const lineCost = Math.max(
    1,
    ...[...new Set(candidates.map((candidate) => candidate.speaker))].map((speaker) =>
      settings.counter.countText(renderLine({ text: "", speaker })),
    ),
  );
  // The new segment's share of the budget: its messages against every covered one, each new message counted
  // recencyWeight times.
  const weighted = settings.recencyWeight * messages.length;
  const shareNew = weighted / Math.max(1, previousMessages + weighted);
  const available = tokenBudget - settings.counter.countText(header) - 1;
  let chosen = await sliced(selectionSteps(candidates, available, shareNew, settings.counter, lineCost));
  let text = render(header, chosen, dated);
  // The line costs above are estimates; drop the least dense sentences until the text is within the budget.
  while (chosen.length > 0 && settings.counter.countText(text) > tokenBudget) {
    const weakest = chosen.reduce((low, candidate) =>
      candidate.value / candidate.tokens < low.value / low.tokens ? candidate : low,
    );
    chosen = chosen.filter((candidate) => candidate !== weakest);
    text = render(header, chosen, dated);
  }
  return text;
}

function render(header: string, chosen: readonly Priced[], dated: boolean): string {
  const lines = new Map<number, Priced[]>();
  for (const candidate of chosen) lines.set(candidate.line, [...(lines.get(candidate.line) ?? []), candidate]);
  const summaryLines: SummaryLine[] = [...lines.values()].map((sentences) => ({
    text: sentences.map((sentence) => sentence.text).join(" "),
    speaker: sentences[0]!.speaker,
    date: sentences[0]!.date,
  }));
  return [header, ...renderLines(summaryLines, dated)].join("\n");
}
