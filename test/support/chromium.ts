/**
 * The headless browser the page tests use: Debian's `chromium` (never a downloaded one), installed through apt when
 * it is missing and this process may (root, apt-get present). CHROMIUM_PATH names another executable.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];

export function chromiumPath(): string {
  const given = process.env.CHROMIUM_PATH;
  if (given) {
    if (!existsSync(given)) throw new Error(`CHROMIUM_PATH=${given} does not exist`);
    return given;
  }
  const found = CANDIDATES.find((path) => existsSync(path));
  if (found) return found;
  if (process.getuid?.() !== 0 || !existsSync("/usr/bin/apt-get")) {
    throw new Error("chromium is not installed: apt-get install chromium (Debian's package), or set CHROMIUM_PATH");
  }
  execFileSync("apt-get", ["update", "-qq"], { stdio: "ignore", timeout: 300_000 });
  execFileSync("apt-get", ["install", "-y", "-qq", "chromium"], { stdio: "ignore", timeout: 600_000, env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  const installed = CANDIDATES.find((path) => existsSync(path));
  if (!installed) throw new Error("apt-get install chromium finished, but no chromium executable was found");
  return installed;
}
