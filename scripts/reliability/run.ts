/**
 * `npm run test:reliability`: the reliability suites at full size (RELIABILITY_FULL=1), and the property suites kept
 * beside their subjects, then their figures.
 * `-- --reduced` runs the CI sizes instead. Figures land in .tmp/reliability/ (cleared first).
 */
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { FULL_SIZE_ELSEWHERE } from "./suites.js";

const reduced = process.argv.includes("--reduced");
rmSync(join(process.cwd(), ".tmp", "reliability"), { recursive: true, force: true });
const vitest = join(dirname(createRequire(import.meta.url).resolve("vitest/package.json")), "vitest.mjs");
// Two workers, one per core: at full size these suites keep the cores busy themselves (the fuzz runs compute, the
// crash and racing suites start processes), and a third worker only stretched every one of them (crash safety
// 833 s, racing 375 s, both fuzz runs past their budget) where two finish in about 9 minutes.
const run = spawnSync(process.execPath, [vitest, "run", "test/reliability", ...FULL_SIZE_ELSEWHERE, "--maxWorkers=2"], {
  stdio: "inherit",
  // The process suites (crash, racing: vitest.config.ts) run here only, with the in-process ones.
  env: { ...process.env, RELIABILITY_FULL: reduced ? "" : "1", COMPACTION_PROCESS_SUITES: "1" },
});
if (run.status !== 0) process.exit(run.status ?? 1);
await import("./report.js");
