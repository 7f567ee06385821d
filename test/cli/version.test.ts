import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main.js";
import { ROOT } from "../support/run-script.js";

describe("compact-thread --version", () => {
  it("prints the package's version and exits 0, with or without a command", async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    for (const argv of [["--version"], ["list", "--version"]]) {
      const out: string[] = [];
      const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => (out.push(String(chunk)), true));
      try {
        expect(await main(argv, {})).toBe(0);
      } finally {
        spy.mockRestore();
      }
      expect(out.join("")).toBe(`${version}\n`);
    }
  });
});
