import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mayHoldLongRun } from "../../src/tokens/split.js";
import { mixedText, pathologicalInputs } from "../../scripts/workload/text.js";

/** The plain definition: the longest run of characters sharing a class exceeds the bound. */
function reference(text: string, maxRunLength: number): boolean {
  const classes = (code: number) =>
    code < 128
      ? code === 32 || (code >= 9 && code <= 13)
        ? 1
        : /[A-Za-z]/.test(String.fromCharCode(code))
          ? 2
          : code >= 48 && code <= 57
            ? 0
            : 4
      : /\s/.test(String.fromCharCode(code))
        ? 1
        : 6;
  const runs = [0, 0, 0];
  for (let index = 0; index < text.length; index++) {
    const bits = classes(text.charCodeAt(index));
    for (const [slot, bit] of [1, 2, 4].entries()) {
      runs[slot] = bits & bit ? runs[slot]! + 1 : 0;
      if (runs[slot]! > maxRunLength) return true;
    }
  }
  return false;
}

describe("mayHoldLongRun", () => {
  it("agrees with the plain definition on random texts with runs of every class", () => {
    const piece = fc.oneof(
      fc.string({ unit: "grapheme", maxLength: 40 }),
      fc
        .tuple(
          fc.constantFrom(" ", "\n", "a", "Z", "=", "-", "9", "数", "é", "\u3000"),
          fc.integer({ min: 1, max: 300 }),
        )
        .map(([char, count]) => char.repeat(count)),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), fc.integer({ min: 16, max: 200 }), (pieces, maxRunLength) => {
        const text = pieces.join("");
        expect(mayHoldLongRun(text, maxRunLength)).toBe(reference(text, maxRunLength));
      }),
      { numRuns: 2_000, seed: 4242 },
    );
  });

  it("finds every pathological input and passes realistic text", () => {
    for (const [name, text] of Object.entries(pathologicalInputs(5_000)))
      expect(mayHoldLongRun(text, 128), name).toBe(reference(text, 128));
    for (const seed of [1, 2, 3]) {
      const text = mixedText(seed, 20_000);
      expect(mayHoldLongRun(text, 128)).toBe(reference(text, 128));
    }
  });
});
