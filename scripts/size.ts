/**
 * npm run size — what a wrapper + SQLite user loads, and what a maintainer reads: the code lines of the static import
 * closure of the file defining CompactingSupervisor plus the SQLite backend (type-only imports followed too), and of
 * src/ in all, beside the goals of 1.0 (6,000 and 14,000). Comment and blank lines are not counted; the formatter
 * decides the rest. Prints, never fails: the goals are a direction, not a gate.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..");
const SRC = join(ROOT, "src");
const GOALS = { closure: 6_000, all: 14_000 };
const STARTS = ["src/runtimes/wrapper/compacting-supervisor.ts", "src/store/backend-sqlite.ts"];

function files(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith(".ts") ? [path] : [];
  });
}

/** Lines that are neither blank nor comment (`//` lines and `/* … *\/` blocks). */
function codeLines(text: string): number {
  let count = 0;
  let inBlock = false;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (inBlock) inBlock = !line.includes("*/");
    else if (line.startsWith("/*")) inBlock = !line.includes("*/");
    else if (line !== "" && !line.startsWith("//")) count++;
  }
  return count;
}

const IMPORT = /(?:from\s+|import\s+)["'](\.{1,2}\/[^"']+)["']/g;

/** The files `path` imports statically (`import()` is a later load, not followed). */
function importsOf(path: string, text: string): string[] {
  return [...text.matchAll(IMPORT)].flatMap((match) => {
    const base = resolve(dirname(path), match[1]!);
    const found = [base.replace(/\.js$/, ".ts"), `${base}.ts`, join(base, "index.ts")].find(
      (candidate) => candidate.endsWith(".ts") && existsSync(candidate),
    );
    return found ? [found] : [];
  });
}

const all = files(SRC);
const lines = new Map(all.map((path) => [path, codeLines(readFileSync(path, "utf8"))]));
const seen = new Set<string>();
const todo = STARTS.map((path) => join(ROOT, path));
while (todo.length > 0) {
  const path = todo.pop()!;
  if (seen.has(path)) continue;
  seen.add(path);
  todo.push(...importsOf(path, readFileSync(path, "utf8")));
}
const sum = (paths: Iterable<string>) => [...paths].reduce((total, path) => total + (lines.get(path) ?? 0), 0);
const closure = sum(seen);
const total = sum(all);
console.log(
  `wrapper + SQLite backend, static closure: ${closure.toLocaleString("en")} code lines in ${seen.size} files (goal ${GOALS.closure.toLocaleString("en")})`,
);
console.log(
  `src/ in all: ${total.toLocaleString("en")} code lines in ${all.length} files (goal ${GOALS.all.toLocaleString("en")})`,
);
const largest = [...seen].sort((a, b) => lines.get(b)! - lines.get(a)!).slice(0, 10);
console.log(`largest in the closure: ${largest.map((path) => `${relative(SRC, path)} ${lines.get(path)}`).join(", ")}`);
