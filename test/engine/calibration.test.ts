/**
 * The calibrated count (src/tokens/calibration.ts): the provider's figure of the latest call plus what was appended
 * since, scaled by the model's ratio; the tokenizer's count where no reply carries a figure; a figure that is not a
 * positive number, or more than 4× from the tokenizer's, ignored with one notice per model; a reply kept verbatim
 * after a compaction (its figure no longer the context's) scaled by the ratio alone.
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { Calibration, type UsageIgnoredNotice } from "../../src/engine/calibration.js";
import { createSummaryMessage } from "../../src/messages/summary-message.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";

const counter = new TokenCounter({ model: "gpt-4o" });
const provider = new TokenCounter({ model: "gpt-4" });
const SCALE = 1.22;

/** A reply whose usage figure is the scripted provider's count of `input`, or `figure` when given ("missing": none). */
function reply(id: string, input: readonly BaseMessage[], figure?: { value: unknown }): AIMessage {
  const value = figure ? figure.value : Math.round(provider.countMessages(input) * SCALE);
  const usage =
    value === "missing"
      ? { output_tokens: 12, total_tokens: 12 }
      : { input_tokens: value, output_tokens: 12, total_tokens: 0 };
  return new AIMessage({
    id,
    content: `Answer ${id}: the refund of order ord_${id} is 340 EUR.`,
    usage_metadata: usage as AIMessage["usage_metadata"],
    response_metadata: { model_name: "claude-sonnet" },
  });
}

function conversation(turns: number): BaseMessage[] {
  const messages: BaseMessage[] = [];
  for (let turn = 0; turn < turns; turn++) {
    messages.push(
      new HumanMessage({
        id: `ask-${turn}`,
        content: `Turn ${turn}: where is parcel PX-${700 + turn}, who cleared it at customs in Lisbon, and what was the VAT?`,
      }),
    );
    messages.push(reply(`r${turn}`, messages));
  }
  return messages;
}

describe("Calibration", () => {
  it("without usage figures, counts what the tokenizer counts", () => {
    const messages = conversation(6).map((message) =>
      message instanceof AIMessage ? new AIMessage({ id: message.id, content: message.content }) : message,
    );
    expect(new Calibration(counter).measure(messages, 40)).toEqual({
      tokens: counter.countMessages(messages) + 40,
      calibrated: false,
      ratio: 1,
      each: counter.countEach(messages),
    });
  });

  it("after two calls, counts within 3% of the provider's own count of the next call's input", () => {
    const calibration = new Calibration(counter);
    const messages = conversation(2);
    calibration.measure(messages);
    messages.push(
      new HumanMessage({
        id: "ask-next",
        content: "And the total for both parcels, with the customs fee of 12 EUR each?",
      }),
    );
    const measured = calibration.measure(messages);
    const truth = Math.round(provider.countMessages(messages) * SCALE);
    expect(measured.calibrated).toBe(true);
    expect(Math.abs(measured.tokens - truth) / truth).toBeLessThanOrEqual(0.03);
    // The tokenizer alone is further off than that: what the calibration is for.
    expect(Math.abs(counter.countMessages(messages) - truth) / truth).toBeGreaterThan(0.1);
  });

  for (const [label, figure] of [
    ["missing", "missing"],
    ["zero", 0],
    ["negative", -5],
    ["not a number", "many"],
    ["absurd (10×)", 100_000],
    ["absurd (under a quarter)", 1],
  ] as const) {
    it(`ignores a figure that is ${label}: the tokenizer's count, and one notice per model`, () => {
      const notices: UsageIgnoredNotice[] = [];
      const calibration = new Calibration(counter, (notice) => notices.push(notice));
      const messages: BaseMessage[] = [
        new HumanMessage({
          id: "q",
          content: "Where is parcel PX-701, and who cleared it at customs in Lisbon on Tuesday?",
        }),
      ];
      messages.push(reply("a", messages, { value: figure }));
      messages.push(new HumanMessage({ id: "q2", content: "And the VAT?" }));
      expect(calibration.measure(messages)).toEqual({
        tokens: counter.countMessages(messages),
        calibrated: false,
        ratio: 1,
        each: counter.countEach(messages),
      });
      calibration.measure(messages);
      expect(notices).toEqual([expect.objectContaining({ code: "USAGE_IGNORED", model: "claude-sonnet" })]);
    });
  }

  it("a reply kept verbatim after a compaction: its figure is not the context's any more; the model's ratio scales the count", () => {
    const calibration = new Calibration(counter);
    const messages = conversation(8);
    calibration.measure(messages.slice(0, 12));
    calibration.measure(messages);
    // A compaction keeps the last two turns after a summary: the last reply's figure counted the whole thread.
    const compacted = [
      new HumanMessage({ id: "summary", content: "Summary: parcels PX-700 to PX-705 cleared in Lisbon; VAT paid." }),
      ...messages.slice(-4),
    ];
    const measured = calibration.measure(compacted);
    const truth = Math.round(provider.countMessages(compacted) * SCALE);
    expect(Math.abs(measured.tokens - truth) / truth).toBeLessThanOrEqual(0.05);
    expect(measured.usage).toBeUndefined();
  });

  it("counts each reply once in the model's ratio, however often the thread is counted", () => {
    const calibration = new Calibration(counter);
    const messages = conversation(1);
    const first = calibration.measure(messages).ratio;
    for (let i = 0; i < 20; i++) calibration.measure(messages);
    expect(calibration.ratioOf("claude-sonnet")).toBe(first);
  });

  it("after a restart, a reply made before the thread's summary is not read as the context's count; the next one is", () => {
    // The head at rest after a compaction: the summary, then the latest turns kept verbatim. The last reply's figure
    // counted the whole thread its call saw (twice what the head now holds).
    const before = conversation(8);
    const stale = reply("r-stale", before);
    const kept = before.slice(-3);
    const head: BaseMessage[] = [
      createSummaryMessage("Parcels PX-700 to PX-704 cleared in Lisbon; VAT paid.", provenance()),
      ...kept,
      stale,
    ];
    const measuredHead = counter.countMessages(head.slice(0, -1));
    expect(Number(stale.usage_metadata!.input_tokens) / measuredHead).toBeGreaterThan(1.5);
    // A new process (a restarted wrapper, the script): nothing learned yet.
    const notices: UsageIgnoredNotice[] = [];
    const calibration = new Calibration(counter, (notice) => notices.push(notice));
    head.push(new HumanMessage({ id: "ask-after", content: "And which of them paid the customs fee?" }));
    expect(calibration.measure(head)).toEqual({
      tokens: counter.countMessages(head),
      calibrated: false,
      ratio: 1,
      each: counter.countEach(head),
    });
    // The next call saw the summary: its figure counts again, within 3% of the provider's count of the next input.
    head.push(reply("r-fresh", head));
    head.push(new HumanMessage({ id: "ask-last", content: "Thanks. And the VAT again?" }));
    const measured = calibration.measure(head);
    const truth = Math.round(provider.countMessages(head) * SCALE);
    expect(measured.calibrated).toBe(true);
    expect(Math.abs(measured.tokens - truth) / truth).toBeLessThanOrEqual(0.03);
    expect(notices).toEqual([]);
  });

  it("a reply before the summary, with the model's ratio known: scaled by the ratio, and not learned from", () => {
    const calibration = new Calibration(counter);
    const other = conversation(3);
    calibration.measure(other);
    const ratio = calibration.ratioOf("claude-sonnet");
    const before = conversation(8);
    const stale = reply("r-stale-2", before);
    const head: BaseMessage[] = [
      createSummaryMessage("Parcels PX-700 to PX-704 cleared in Lisbon; VAT paid.", provenance()),
      ...before.slice(-9),
      stale,
    ];
    // Within the bounds a figure is trusted in (so only its place after the summary tells it is stale).
    const observed = Number(stale.usage_metadata!.input_tokens) / counter.countMessages(head.slice(0, -1));
    expect(observed / ratio).toBeGreaterThan(1.2);
    expect(observed).toBeLessThan(4);
    const measured = calibration.measure(head);
    expect(measured).toEqual({
      tokens: Math.ceil(ratio * counter.countMessages(head)),
      calibrated: true,
      ratio,
      each: counter.countEach(head),
    });
    expect(calibration.ratioOf("claude-sonnet")).toBe(ratio);
  });

  it.each<[string, (turn: number, tokenizer: number) => number]>([
    ["a constant figure", () => 1_000],
    [
      "a figure drifting from 3.9x to 0.26x of the tokenizer's",
      (turn, tokenizer) => Math.round(tokenizer * (3.9 - (3.64 * turn) / 29)),
    ],
  ])("%s within the trusted band never brings the count under 0.9 of the tokenizer's, told once", (_, figure) => {
    const notices: UsageIgnoredNotice[] = [];
    const calibration = new Calibration(counter, (notice) => void notices.push(notice));
    const messages: BaseMessage[] = [];
    let lowest = Infinity;
    for (let turn = 0; turn < 30; turn++) {
      messages.push(
        new HumanMessage({
          id: `ask-${turn}`,
          content: `Turn ${turn}: where is parcel PX-${700 + turn}, who cleared it at customs in Lisbon, and what was the VAT?`,
        }),
      );
      const tokenizer = counter.countMessages(messages);
      messages.push(
        new AIMessage({
          id: `r${turn}`,
          content: `Answer ${turn}: cleared by agent ${turn}, VAT 23%.`,
          usage_metadata: { input_tokens: figure(turn, tokenizer), output_tokens: 12, total_tokens: 0 },
          response_metadata: { model_name: "understating" },
        }),
      );
      const measured = calibration.measure(messages);
      lowest = Math.min(lowest, measured.tokens / counter.countMessages(messages));
    }
    expect(lowest).toBeGreaterThanOrEqual(0.9);
    expect(notices.filter((notice) => notice.code === "USAGE_FLOORED")).toEqual([
      expect.objectContaining({ code: "USAGE_FLOORED", model: "understating" }),
    ]);
  });
});

function provenance(): Parameters<typeof createSummaryMessage>[1] {
  return {
    replacedCheckpointId: null,
    coveredMessages: 13,
    coveredTokens: 400,
    firstCoveredId: "ask-0",
    lastCoveredId: "r5",
    coveredIds: [],
    previousSummaryId: null,
    summarizer: "extractive",
    model: null,
  };
}
