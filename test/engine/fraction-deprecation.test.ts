/**
 * A number never changes meaning with its size: `tokenLimit` and `hardLimit` given in code as a number <= 1 (a share
 * of the window) still resolve as before, with a deprecation warning naming the form that says it — `trigger: {
 * fraction }` and `hardLimit: { fraction }` — once each per process. TOKEN_LIMIT and `--limit` are text and keep
 * their forms without a warning.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

/**
 * A deprecation is said once per process, and test files share their worker's modules (vitest.config.ts): each case
 * loads the policy afresh, so what it sees is said by it alone.
 */
async function fresh() {
  vi.resetModules();
  const { resolvePolicy } = await import("../../src/engine/policy.js");
  const { environmentPolicy } = await import("../../src/engine/policy-environment.js");
  return { resolvePolicy, environmentPolicy };
}

const warnings: Array<{ code?: string; message: string }> = [];
const listen = (warning: Error & { code?: string }) =>
  void warnings.push({ code: warning.code, message: warning.message });
beforeEach(() => {
  warnings.length = 0;
  process.on("warning", listen);
});
afterEach(() => void process.off("warning", listen));
/** Warnings are emitted on the next tick. */
const tick = () => new Promise((resolve) => setImmediate(resolve));
const deprecations = () => warnings.filter((warning) => warning.code === "LANGGRAPH_COMPACTION_DEPRECATED");

describe("a fraction of the window is said as one", () => {
  it("TOKEN_LIMIT as a fraction is text that names its form: no warning", async () => {
    const { resolvePolicy, environmentPolicy } = await fresh();
    const { options, names } = environmentPolicy({}, { TOKEN_LIMIT: "0.5" });
    const policy = resolvePolicy({ ...options, model: "gpt-4o" }, { names });
    await tick();
    expect(policy.tokenLimit).toBe(64_000);
    expect(deprecations()).toEqual([]);
  });

  it("hardLimit: { fraction } resolves as the number did; a number <= 1 is deprecated, said once", async () => {
    const { resolvePolicy } = await fresh();
    const byObject = resolvePolicy({ tokenLimit: 50_000, hardLimit: { fraction: 0.5 }, model: "gpt-4o" });
    await tick();
    expect(deprecations()).toEqual([]);
    const byNumber = resolvePolicy({ tokenLimit: 50_000, hardLimit: 0.5, model: "gpt-4o" });
    resolvePolicy({ tokenLimit: 50_000, hardLimit: 0.6, model: "gpt-4o" });
    await tick();
    expect(byObject.hardLimit).toBe(64_000);
    expect(byNumber.hardLimit).toBe(byObject.hardLimit);
    expect(deprecations()).toEqual([
      expect.objectContaining({ message: expect.stringContaining("use hardLimit: { fraction: 0.5 }") }),
    ]);
  });

  it("tokenLimit <= 1 in code resolves as trigger: { fraction } does, deprecated and said once", async () => {
    const { resolvePolicy } = await fresh();
    const byTrigger = resolvePolicy({ trigger: { fraction: 0.5 }, model: "gpt-4o" });
    await tick();
    expect(deprecations()).toEqual([]);
    const byNumber = resolvePolicy({ tokenLimit: 0.5, model: "gpt-4o" });
    resolvePolicy({ tokenLimit: 0.25, model: "gpt-4o" });
    await tick();
    expect(byNumber.tokenLimit).toBe(byTrigger.tokenLimit);
    expect(deprecations()).toEqual([
      expect.objectContaining({ message: expect.stringContaining("use trigger: { fraction: 0.5 }") }),
    ]);
  });

  it("hardLimit: { fraction } outside (0, 1] is refused, naming the field", async () => {
    const { resolvePolicy } = await fresh();
    expect(() => resolvePolicy({ tokenLimit: 50_000, hardLimit: { fraction: 1.5 } })).toThrow(
      expect.objectContaining({ code: "INVALID_ARGUMENT", parameter: "hardLimit.fraction" }),
    );
  });
});
