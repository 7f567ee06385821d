/**
 * npm run check:layers — the folders of src/ depend one way, ground up, no file imports itself through others, and
 * no file holds more than 300 lines.
 * Prints each folder with the folders it imports, then every import that points up a layer or closes a cycle (between
 * folders, or between files); exits 1 if there is any.
 * Files directly under src/ (errors, secrets, optional dependencies) are the ground floor, "(root)"; the package's
 * entry points (src/index.ts, src/<subpath>.ts) re-export from every floor and sit on top, "(entry)".
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

const SRC = resolve(import.meta.dirname, "../src");

/** Ground up; a folder may import its own layer's files and any layer below, never one above. */
export const LAYERS: readonly (readonly string[])[] = [
  ["(root)"],
  ["options"],
  ["tokens"],
  ["messages"],
  ["summarizers"],
  ["store"],
  ["engine"],
  ["strategies", "archive", "recall"],
  ["runtimes", "client"],
  ["testing"],
  ["cli"],
  ["(entry)"],
];

/** The most lines a file of src/ may hold. */
const MAX_LINES = 300;

/** The package's entry points: the root and its subpaths. */
const ENTRIES = new Set([
  "index.ts",
  "sqlite.ts",
  "postgres.ts",
  "openai.ts",
  "middleware.ts",
  "client.ts",
  "strategies.ts",
  "internal.ts",
]);

function files(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith(".ts") ? [path] : [];
  });
}

function folderOf(path: string): string {
  const parts = relative(SRC, path).split(sep);
  if (parts.length === 1) return ENTRIES.has(parts[0]!.replace(/\.js$/, ".ts")) ? "(entry)" : "(root)";
  return parts[0]!;
}

const layerOf = new Map(LAYERS.flatMap((folders, level) => folders.map((folder) => [folder, level] as const)));
const edges = new Map<string, Map<string, string[]>>();
/** File → the files it imports (relative imports only): for the cycles between files. */
const fileEdges = new Map<string, string[]>();
const problems: string[] = [];

for (const file of files(SRC)) {
  const from = folderOf(file);
  if (!layerOf.has(from))
    problems.push(`${relative(SRC, file)}: folder ${from} is in no layer of scripts/check-layers.ts`);
  const source = readFileSync(file, "utf8");
  const lines = source.split("\n").length - (source.endsWith("\n") ? 1 : 0);
  if (lines > MAX_LINES)
    problems.push(`${relative(SRC, file)}: ${lines} lines, over ${MAX_LINES} (one concept per file: split it)`);
  for (const match of source.matchAll(/(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"|import\(\s*"(\.[^"]+)"\s*\)/g)) {
    const target = resolve(dirname(file), (match[1] ?? match[2])!);
    fileEdges.set(file, [...(fileEdges.get(file) ?? []), target.replace(/\.js$/, ".ts")]);
    const to = folderOf(target);
    if (to === from) continue;
    const byTarget = edges.get(from) ?? new Map<string, string[]>();
    byTarget.set(to, [...(byTarget.get(to) ?? []), relative(SRC, file)]);
    edges.set(from, byTarget);
  }
}

for (const [from, targets] of [...edges].sort()) {
  for (const [to, sources] of targets) {
    const up = (layerOf.get(to) ?? Infinity) > (layerOf.get(from) ?? -1);
    const sideways = layerOf.get(to) === layerOf.get(from);
    if (up || (sideways && edges.get(to)?.has(from))) {
      problems.push(`${from} → ${to} (${up ? "upward" : "a cycle"}): ${[...new Set(sources)].join(", ")}`);
    }
  }
}

// Cycles between files (type-only imports included: a cycle is a seam that shows, whatever TypeScript erases).
for (const cycle of cyclesOf(fileEdges))
  problems.push(`a cycle between files: ${cycle.map((file) => relative(SRC, file)).join(" → ")}`);

/** The strongly connected groups of more than one file (Tarjan), each as a list. */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    for (;;) {
      const member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
      if (member === node) break;
    }
    if (group.length > 1) found.push(group.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

console.log("folder          imports");
for (const folders of LAYERS) {
  for (const folder of folders) {
    const targets = [...(edges.get(folder)?.keys() ?? [])].sort(
      (a, b) => layerOf.get(a)! - layerOf.get(b)! || a.localeCompare(b),
    );
    console.log(`${folder.padEnd(15)} ${targets.join(", ") || "—"}`);
  }
}
if (problems.length > 0) {
  console.log(
    `\n${problems.length} import problem(s) (layers, ground up: ${LAYERS.map((layer) => layer.join("/")).join(" → ")}):`,
  );
  for (const problem of problems) console.log(`  ${problem}`);
  process.exit(1);
}
console.log(
  `\nevery folder imports only its own layer and the layers below; no file imports itself through others; no file over ${MAX_LINES} lines`,
);
