/**
 * npm run check:one-of-each — each concept of the library in one place, counted from src/ (exits 1 on a second one):
 *
 * - resolvers: functions that turn a runtime's options into settings (they call the policy's resolver);
 * - head-writing functions: callers of the store's compare-and-swap on a thread's head, outside the store;
 * - prune planners: exported functions that make a prune's plan;
 * - per-thread lifecycles: modules that hold a thread's compaction across events (the scheduler's state, or a hold
 *   of a thread of their own: a lease).
 *
 * Tokenizer passes per compaction (at most 2) are counted by a test that runs the wrapper and the middleware
 * (test/engine/count-once.test.ts).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dirname, "../src");

function files(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith(".ts") ? [path] : [];
  });
}

/** A file's code: comments taken out, so a comment that names a function is not a use of it. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

const sources = files(SRC).map((file) => ({
  path: `src/${relative(SRC, file)}`,
  text: code(readFileSync(file, "utf8")),
}));

interface Concept {
  name: string;
  /** Where each one is, as `file: what`. */
  found: string[];
}

function matches(pattern: RegExp, where: (path: string) => boolean = () => true): string[] {
  return sources.flatMap(({ path, text }) =>
    where(path) ? [...text.matchAll(pattern)].map((match) => `${path}: ${match[1] ?? match[0]}`) : [],
  );
}

const concepts: Concept[] = [
  {
    name: "resolvers (options to settings)",
    found: matches(/\bresolvePolicy\(/g, (path) => path !== "src/engine/policy.ts").map((hit) => hit.split(":")[0]!),
  },
  {
    name: "head-writing functions",
    found: matches(/\.replaceHead\(/g, (path) => !path.startsWith("src/store/")).map((hit) => hit.split(":")[0]!),
  },
  {
    name: "prune planners",
    found: matches(/export (?:async )?function (\w+)\([^)]*\)[^{]*\bPrunePlan\b/g),
  },
  {
    name: "per-thread lifecycles",
    found: [
      ...matches(/export class (\w+)[^{]*\{[\s\S]*?readonly schedule: ThreadSchedule/g),
      // A hold of a thread of its own: a lease table, or slots a process takes.
      ...matches(/\b(leasesOf\(|compaction_leases|HostSlots)/g).map((hit) => hit.split(":")[0]!),
    ],
  },
];

let failed = false;
for (const concept of concepts) {
  const found = [...new Set(concept.found)];
  const ok = found.length === 1;
  failed ||= !ok;
  console.log(`${ok ? "✓" : "✗"} ${concept.name}: ${found.length}${found.length > 0 ? ` (${found.join("; ")})` : ""}`);
}
if (failed) {
  console.error("a concept has more than one home (or none): one rule in one place");
  process.exit(1);
}
