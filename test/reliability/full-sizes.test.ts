/**
 * Every suite with a full size (`size(…)`, test/support/reliability.ts) runs at that size somewhere: in
 * test/reliability/, or named in scripts/reliability/suites.ts, which `npm run test:reliability` runs beside it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { FULL_SIZE_ELSEWHERE } from "../../scripts/reliability/suites.js";

const root = join(import.meta.dirname, "..", "..");

function testFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith(".test.ts") ? [relative(root, path)] : [];
  });
}

describe("full sizes", () => {
  it("every suite with a full size runs at it in npm run test:reliability", () => {
    const sized = testFiles(join(root, "test")).filter(
      (file) => !file.startsWith("test/reliability/") && /\bsize\("/.test(readFileSync(join(root, file), "utf8")),
    );
    expect(sized.sort()).toEqual([...FULL_SIZE_ELSEWHERE].sort());
  });
});
