import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { getEngine } from "../../src/tokens/engines.js";
import { countBounded } from "../../src/tokens/split.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { mixedText, pathologicalInputs } from "../../scripts/workload/text.js";

const encodings = ["o200k_base", "cl100k_base"] as const;

describe.each(encodings)("bounded counting (%s)", (encoding) => {
  const engine = getEngine(encoding);

  it("is exact on realistic text, however small the segments", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 16, max: 600 }), (seed, segmentLength) => {
        const text = mixedText(seed, 3_000);
        const bounded = countBounded(text, encoding, engine.count, { segmentLength, maxRunLength: 128 });
        expect(bounded).toBe(engine.count(text));
      }),
      { numRuns: 60, seed: 20261121 },
    );
  });

  it("is exact on arbitrary unicode strings without long unbroken runs", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 400 }), (text) => {
        const bounded = countBounded(text, encoding, engine.count, { segmentLength: 32, maxRunLength: 400 });
        expect(bounded).toBe(engine.count(text));
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  it("is exact on text without spaces (base64, hashes, identifiers), cut between letters and digits", () => {
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-";
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...alphabet.split("")), { minLength: 200, maxLength: 3_000 }),
        fc.integer({ min: 16, max: 300 }),
        (chars, segmentLength) => {
          const text = chars.join("");
          expect(countBounded(text, encoding, engine.count, { segmentLength, maxRunLength: 128 })).toBe(
            engine.count(text),
          );
        },
      ),
      { numRuns: 100, seed: 99 },
    );
  });

  it("stays within one token per blind cut on pathological runs", () => {
    const maxRunLength = 128;
    for (const [name, text] of Object.entries(pathologicalInputs(4_000))) {
      const exact = engine.count(text);
      const bounded = countBounded(text, encoding, engine.count, { maxRunLength });
      const cuts = Math.ceil(text.length / maxRunLength);
      expect(Math.abs(bounded - exact), `${name}: exact ${exact}, bounded ${bounded}`).toBeLessThanOrEqual(cuts);
    }
  });
});

describe("TokenCounter text edge cases", () => {
  const counter = new TokenCounter({ model: "gpt-4o" });

  it("counts special-token strings as plain text instead of throwing", () => {
    expect(counter.countText("<|endoftext|>")).toBeGreaterThan(1);
    expect(counter.countText("before <|im_start|>system<|im_sep|> after")).toBeGreaterThan(5);
  });

  it("counts a megabyte of every pathological input", () => {
    for (const [name, text] of Object.entries(pathologicalInputs(1_000_000))) {
      const tokens = counter.countText(text);
      expect(tokens, name).toBeGreaterThan(0);
    }
  });

  it("maps unknown and provider-prefixed model names instead of throwing", () => {
    for (const model of [
      "gpt-5.1",
      "gpt-oss-20b",
      "claude-sonnet-4-5",
      "deepseek-chat",
      "openai:gpt-4o",
      "totally-new-model",
    ]) {
      expect(new TokenCounter({ model }).encoding, model).toBe("o200k_base");
    }
    expect(new TokenCounter({ model: "gpt-4-0613" }).encoding).toBe("cl100k_base");
    expect(new TokenCounter({ model: "gpt-3.5-turbo" }).encoding).toBe("cl100k_base");
  });

  it("rejects bad options with the option name and value", () => {
    expect(() => new TokenCounter({ model: "" })).toThrow(/model must be .*got ""/);
    expect(() => new TokenCounter({ model: 5 as never })).toThrow(/model must be .*got 5/);
  });
});
