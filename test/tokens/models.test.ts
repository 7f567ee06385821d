/**
 * Provider windows: a fraction of the window means a fraction of the right model's, by the names providers and hosts
 * use (tokensOfSize: the one rule for a trigger, `keep` and the context-trim hook's budget); a model the library does
 * not know asks for its window.
 */
import { describe, expect, it } from "vitest";
import { tokensOfSize } from "../../src/engine/policy.js";

describe("a fraction of the model's window", () => {
  for (const [model, window] of [
    ["gpt-4o", 128_000],
    ["claude-sonnet-4-5", 200_000],
    ["anthropic:claude-3-5-haiku-latest", 200_000],
    ["gemini-2.5-pro", 1_048_576],
    ["google/gemini-1.5-pro-002", 2_097_152],
    ["mistral-large-latest", 128_000],
    ["codestral-latest", 256_000],
    ["meta-llama/Meta-Llama-3.1-8B-Instruct", 131_072],
    ["meta-llama/Meta-Llama-3-8B-Instruct", 8_192],
    ["llama3.1:8b", 131_072],
    ["llama3:8b", 8_192],
    ["qwen2.5-72b-instruct", 131_072],
    ["deepseek-chat", 128_000],
    ["command-r-plus", 128_000],
    ["amazon.nova-pro-v1:0", 300_000],
    ["us.anthropic.claude-sonnet-4-20250514-v1:0", 200_000],
    ["meta.llama3-1-70b-instruct-v1:0", 131_072],
    ["meta.llama3-8b-instruct-v1:0", 8_192],
  ] as const) {
    it(`${model}: 0.8 is 80% of ${window.toLocaleString("en")}`, () => {
      expect(tokensOfSize({ fraction: 0.8 }, "trigger", model)).toBe(Math.floor(0.8 * window));
    });
  }

  it("a model it does not know asks for its window, naming the option and the model", () => {
    expect(() => tokensOfSize({ fraction: 0.8 }, "budget", "totally-new-model")).toThrow(
      expect.objectContaining({
        code: "INVALID_ARGUMENT",
        parameter: "budget.fraction",
        value: 0.8,
        message: expect.stringContaining('"totally-new-model"'),
      }),
    );
    expect(tokensOfSize({ fraction: 0.8 }, "budget", "totally-new-model", 50_000)).toBe(40_000);
    expect(tokensOfSize({ tokens: 3_000 }, "budget", "totally-new-model")).toBe(3_000);
  });
});
