/**
 * The command line that runs a TypeScript entry point of the project in a child process. The global setup bundles
 * every entry the tests spawn once per run (esbuild, dependencies inlined but native addons, into .tmp/test-children/), so a child
 * starts as plain Node instead of loading the tsx loader on each spawn — the suites spawn a few hundred children.
 * An entry that was not bundled runs through tsx, as before.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "../..");

/** The variable through which the global setup tells the test workers where this run's bundles are. */
export const CHILDREN_DIR_VARIABLE = "COMPACTION_TEST_CHILDREN";

/**
 * Where this run's bundles are: one directory per run (the global setup's process), so two runs side by side (npm
 * test beside test:reliability) never remove or rebuild each other's bundles.
 */
export function childrenDir(): string {
  return process.env[CHILDREN_DIR_VARIABLE] ?? join(ROOT, ".tmp", "test-children", "shared");
}

/** The entry points the suites spawn (paths from the project root). */
export const CHILD_ENTRIES = [
  "scripts/compact-thread.ts",
  "scripts/demo.ts",
  "test/support/append-turns.ts",
  "test/support/compact-child.ts",
  "test/support/prune-child.ts",
  "test/support/race-turns.ts",
  "test/support/exit-child.ts",
  "test/support/worker-child.ts",
];

/** Where the bundle of `script` lands. */
export function bundleOf(script: string): string {
  return join(childrenDir(), `${script.replace(/\.ts$/, "").replace(/[/\\]/g, "__")}.mjs`);
}

/** Node's arguments for running `script` (a path from the project root). */
export function childArgs(script: string): string[] {
  const bundle = bundleOf(script);
  return existsSync(bundle) ? [bundle] : ["--import", "tsx", resolve(ROOT, script)];
}
