/**
 * Near-duplicate removal answers as comparing each sentence with every better one kept would, whatever the words:
 * the indexed version (prefix filtering on the rarest words) against that all-pairs reference on random candidates.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Candidate } from "../../src/summarizers/extractive/candidates.js";
import { distinct, NEAR_DUPLICATE } from "../../src/summarizers/extractive/select.js";
import { FUZZ_SEED, size } from "../support/reliability.js";
import { isIdentifier, isNumber } from "../../src/messages/words.js";

const RUNS = size("FUZZ_RUNS", 300, 3000);

/**
 * The definition: a candidate is dropped when a kept, better-valued one holds NEAR_DUPLICATE of its words and every
 * number and identifier among them.
 */
function allPairs(candidates: readonly Candidate[]): Candidate[] {
  const ranked = candidates
    .filter((candidate) => !candidate.filler && candidate.value > 0)
    .sort((a, b) => b.value - a.value || a.order - b.order);
  const kept: Candidate[] = [];
  for (const candidate of ranked) {
    const figures = [...candidate.content].filter((word) => isNumber(word) || isIdentifier(word));
    const duplicate = kept.some(
      (other) =>
        [...candidate.content].filter((word) => other.content.has(word)).length >=
          NEAR_DUPLICATE * candidate.content.size && figures.every((word) => other.content.has(word)),
    );
    if (!duplicate) kept.push(candidate);
  }
  return kept;
}

const candidate = (words: readonly string[]) =>
  fc.record({
    content: fc.uniqueArray(fc.constantFrom(...words), { maxLength: 12 }),
    value: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 5 })),
    filler: fc.boolean(),
  });

describe("distinct", () => {
  it(`drops exactly the near-duplicates the all-pairs definition drops (${RUNS} sets)`, () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 2, max: 30 })
          .chain((vocabulary) =>
            fc.array(
              candidate(
                Array.from({ length: vocabulary }, (_, index) =>
                  index % 3 === 0 ? `w${index}` : "q".repeat(index + 1),
                ),
              ),
              { maxLength: 80 },
            ),
          ),
        (drawn) => {
          const candidates: Candidate[] = drawn.map((item, order) => ({
            text: item.content.join(" "),
            line: order,
            order,
            speaker: "user",
            fromPrevious: false,
            utterance: true,
            content: new Set(item.content),
            value: item.value,
            filler: item.filler && order % 3 === 0,
          }));
          expect(distinct(candidates).map((kept) => kept.order)).toEqual(
            allPairs(candidates).map((kept) => kept.order),
          );
        },
      ),
      { numRuns: RUNS, seed: FUZZ_SEED },
    );
  });
});
