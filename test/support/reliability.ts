/**
 * Sizes and figures of the reliability suites. `npm test` runs them reduced; `npm run test:reliability` sets
 * RELIABILITY_FULL=1 for the full sizes and then prints the figures each suite recorded in .tmp/reliability/.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const FULL = process.env.RELIABILITY_FULL === "1";

/** The reduced size in a normal run, the full one with RELIABILITY_FULL=1; an explicit env value wins. */
export function size(name: string, reduced: number, full: number): number {
  const explicit = Number(process.env[name]);
  return Number.isInteger(explicit) && explicit > 0 ? explicit : FULL ? full : reduced;
}

/** The seed for the property-based suites: FUZZ_SEED when set (to reproduce a failure), else a fixed one. */
export const FUZZ_SEED =
  Number.isInteger(Number(process.env.FUZZ_SEED)) && process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 20261122;

/** Writes this suite's figures for the report (merged into any figures it recorded before in this run). */
export function recordFigures(suite: string, figures: Record<string, unknown>): void {
  const dir = join(process.cwd(), ".tmp", "reliability");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${suite}.json`);
  let previous: Record<string, unknown> = {};
  try {
    previous = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    previous = {};
  }
  writeFileSync(
    file,
    `${JSON.stringify({ ...previous, ...figures, full: FULL, recordedAt: new Date().toISOString() }, null, 2)}\n`,
  );
}
