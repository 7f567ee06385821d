/**
 * npm run check:comments — every file a comment of src/ names exists: a path from the project's root, from src/, from
 * the comment's folder, or a name alone that some file of the project bears (`calibration.ts`). Prints each comment
 * that names a file no longer there; exits 1 if there is any.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..");
const SKIP = new Set(["node_modules", ".git", "dist", ".tmp"]);
/** A file named in a comment: a path ending in one of the project's own extensions. */
const NAMED = /[\w./-]+\.(?:ts|md|json)\b/g;

function files(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    if (SKIP.has(name)) return [];
    const path = join(directory, name);
    return statSync(path).isDirectory() ? [path, ...files(path)] : [path];
  });
}

const paths = new Set(files(ROOT).map((path) => relative(ROOT, path)));
const names = new Set([...paths].map((path) => basename(path)));
const exists = (named: string, from: string): boolean =>
  [named, join("src", named), relative(ROOT, join(dirname(from), named))].some((path) => paths.has(path)) ||
  (!named.includes("/") && names.has(named)) ||
  [...paths].some((path) => path.endsWith(`/${named}`));

const broken: string[] = [];
const sources = [...paths].filter((path) => path.startsWith("src/") && path.endsWith(".ts"));
for (const source of sources) {
  readFileSync(join(ROOT, source), "utf8")
    .split("\n")
    .forEach((line, index) => {
      if (!/^\s*(\/\*\*|\*|\/\/)/.test(line)) return;
      for (const [named] of line.matchAll(NAMED))
        if (!exists(named, join(ROOT, source)))
          broken.push(`${source}:${index + 1}: names ${named}, which is not in the project`);
    });
}
if (broken.length > 0) {
  console.log(`${broken.length} comment(s) name a file that is not there:`);
  for (const line of broken) console.log(`  ${line}`);
  process.exit(1);
}
console.log(`every file a comment names is there (${sources.length} files of src/ read)`);
