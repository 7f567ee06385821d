import { describe, expect, it } from "vitest";
import { GenerationalCache } from "../../src/tokens/generational-cache.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { pathologicalInputs, mixedText } from "../../scripts/workload/text.js";

describe("GenerationalCache", () => {
  it("keeps recent entries and bounds memory to two generations", () => {
    const cache = new GenerationalCache<string, number>(3);
    for (let index = 0; index < 10; index++) cache.set(`k${index}`, index);
    expect(cache.get("k9")).toBe(9);
    expect(cache.get("k6")).toBe(6);
    expect(cache.get("k0")).toBeUndefined();
  });

  it("lets the counter give the same counts after its caches filled with unique pre-tokens", () => {
    const counter = new TokenCounter();
    const text = mixedText(5, 50_000);
    const first = counter.countText(text);
    counter.countText(pathologicalInputs(600_000).base64!);
    expect(counter.countText(text)).toBe(first);
  });
});
