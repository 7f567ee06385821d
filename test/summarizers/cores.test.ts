/**
 * Cores: an utterance is kept as its densest sentences up to 70% of its value, at the cost of those
 * sentences and with the value of the whole message; a tool's records and carried lines stay separate.
 */
import { describe, expect, it } from "vitest";
import type { Candidate } from "../../src/summarizers/extractive/candidates.js";
import { CORE_SHARE, coreSteps } from "../../src/summarizers/extractive/cores.js";
import { drain } from "../../src/slices.js";

let order = 0;
function sentence(line: number, text: string, value: number, utterance = true): Candidate {
  return {
    text,
    line,
    order: order++,
    speaker: "Ana",
    fromPrevious: false,
    utterance,
    content: new Set(text.toLowerCase().split(" ")),
    value,
    filler: false,
  };
}
/** One token per word. */
const words = (text: string) => text.split(" ").length;

describe("coreSteps", () => {
  it("keeps an utterance's densest sentences, in order, until they hold 70% of its value, priced as one line worth the whole message", () => {
    const opening = sentence(1, "so we finally went there after all this time", 2);
    const fact = sentence(1, "Biscuit the greyhound", 6);
    const detail = sentence(1, "adopted in Porto", 3);
    const cores = drain(coreSteps([opening, fact, detail], words, 240));
    expect(cores).toHaveLength(1);
    // 6 + 3 = 9 of 11 >= 70%: the weak opening sentence is left out; the kept ones keep their order.
    expect(cores[0]!.text).toBe("Biscuit the greyhound adopted in Porto");
    expect(cores[0]!.value).toBe(11);
    expect(cores[0]!.order).toBe(fact.order);
    expect(CORE_SHARE).toBe(0.7);
  });

  it("keeps a sentence that alone holds 70%, and nothing else", () => {
    const cores = drain(
      coreSteps(
        [
          sentence(2, "the grant came through", 9),
          sentence(2, "which is nice", 1),
          sentence(2, "for the seahorse team", 2),
        ],
        words,
        240,
      ),
    );
    expect(cores.map((core) => core.text)).toEqual(["the grant came through"]);
  });

  it("leaves a message whose core would be longer than three sentences at their longest sentence by sentence", () => {
    const long = Array.from({ length: 12 }, (_, index) =>
      sentence(5, `report paragraph ${index} ${"detail ".repeat(10)}`, 1),
    );
    // Twelve sentences of equal value: a 70% core holds nine, about 700 characters, over 3 × 120.
    expect(drain(coreSteps(long, words, 120))).toEqual(long);
    expect(drain(coreSteps(long, words, 400))).toHaveLength(1);
  });

  it("leaves a tool's records and other lines as they are, in chronological order", () => {
    const records = [sentence(3, "row INV-1 paid", 4, false), sentence(3, "row INV-2 open", 4, false)];
    const other = sentence(4, "a single sentence", 2);
    const cores = drain(coreSteps([...records, other], words, 240));
    expect(cores).toEqual([...records, other]);
  });
});
