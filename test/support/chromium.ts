/**
 * The headless browser the page tests use: Debian's `chromium` (never a downloaded one). When it is missing and this
 * process may install it (root, apt-get present), it is installed through apt; otherwise the page tests are skipped
 * with a message saying how to run them. CHROMIUM_PATH names another executable.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];

export type ChromiumFound = { path: string } | { skip: string };

export interface ChromiumProbe {
  env: NodeJS.ProcessEnv;
  exists: (path: string) => boolean;
  isRoot: boolean;
  /** Installs Debian's chromium with apt (called only as root with apt-get present). */
  aptInstall: () => void;
}

const machine: ChromiumProbe = {
  env: process.env,
  exists: existsSync,
  isRoot: process.getuid?.() === 0,
  aptInstall: () => {
    execFileSync("apt-get", ["update", "-qq"], { stdio: "ignore", timeout: 300_000 });
    execFileSync("apt-get", ["install", "-y", "-qq", "chromium"], {
      stdio: "ignore",
      timeout: 600_000,
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  },
};

export function findChromium(probe: ChromiumProbe = machine): ChromiumFound {
  const given = probe.env.CHROMIUM_PATH;
  if (given) {
    // A path the user named and got wrong is an error, not a skip.
    if (!probe.exists(given)) throw new Error(`CHROMIUM_PATH=${given} does not exist`);
    return { path: given };
  }
  const found = CANDIDATES.find(probe.exists);
  if (found) return { path: found };
  if (!probe.isRoot || !probe.exists("/usr/bin/apt-get")) {
    return {
      skip: `the browser tests are skipped: chromium is not installed and this process cannot install it (${probe.isRoot ? "no apt-get" : "not root"}). Install Debian's package (sudo apt-get install chromium) or set CHROMIUM_PATH to a Chromium executable, then run npm test again.`,
    };
  }
  probe.aptInstall();
  const installed = CANDIDATES.find(probe.exists);
  if (!installed) throw new Error("apt-get install chromium finished, but no chromium executable was found");
  return { path: installed };
}
