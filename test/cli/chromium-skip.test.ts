/**
 * The browser tests on a machine that cannot install chromium: skipped with a message saying how to run them, never a
 * failure of npm test; as root with apt, installed through apt; a wrong CHROMIUM_PATH is an error.
 */
import { describe, expect, it } from "vitest";
import { findChromium, type ChromiumProbe } from "../support/chromium.js";

function probe(files: string[], isRoot: boolean, env: NodeJS.ProcessEnv = {}): ChromiumProbe & { installs: number } {
  const present = new Set(files);
  const machine = {
    env,
    isRoot,
    installs: 0,
    exists: (path: string) => present.has(path),
    aptInstall: () => {
      machine.installs++;
      present.add("/usr/bin/chromium");
    },
  };
  return machine;
}

describe("finding chromium for the page tests", () => {
  it("without root or apt-get: a skip that says how to run them", () => {
    for (const machine of [probe(["/usr/bin/apt-get"], false), probe([], true)]) {
      const found = findChromium(machine);
      expect(found).toEqual({ skip: expect.stringContaining("apt-get install chromium") });
      expect("skip" in found && found.skip).toContain("CHROMIUM_PATH");
      expect(machine.installs).toBe(0);
    }
  });

  it("as root with apt-get: installs Debian's chromium; an installed one is used as it is", () => {
    const root = probe(["/usr/bin/apt-get"], true);
    expect(findChromium(root)).toEqual({ path: "/usr/bin/chromium" });
    expect(root.installs).toBe(1);
    expect(findChromium(probe(["/usr/bin/chromium-browser"], false))).toEqual({ path: "/usr/bin/chromium-browser" });
  });

  it("CHROMIUM_PATH names the executable; a wrong one is an error, not a skip", () => {
    expect(findChromium(probe(["/opt/chrome"], false, { CHROMIUM_PATH: "/opt/chrome" }))).toEqual({
      path: "/opt/chrome",
    });
    expect(() => findChromium(probe([], false, { CHROMIUM_PATH: "/nope" }))).toThrow(
      "CHROMIUM_PATH=/nope does not exist",
    );
  });
});
