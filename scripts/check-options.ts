/**
 * npm run check:options — the options each runtime takes, as the built declarations (dist/*.d.mts) say them: at most
 * 20 for the wrapper and 20 for the middleware, and every option of every runtime in docs/options.md's one table, in a
 * row that names the runtimes that take it (and only those). Prints each runtime's options; exits 1 on any problem.
 * Run after `npm run build`.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import ts from "typescript";

const ROOT = resolve(import.meta.dirname, "..");
const LIMIT = 20;

/** Each runtime: the entry whose declarations hold it, the type of its options, the column docs/options.md uses. */
const RUNTIMES = [
  { column: "wrapper", entry: "index.d.mts", type: "CompactingSupervisorOptions", limit: LIMIT },
  { column: "middleware", entry: "middleware.d.mts", type: "CompactionMiddlewareOptions", limit: LIMIT },
  { column: "node", entry: "index.d.mts", type: "CompactionNodeOptions" },
  { column: "HistoryManager", entry: "index.d.mts", type: "HistoryManagerOptions" },
  { column: "worker", entry: "index.d.mts", type: "CompactionWorkerOptions" },
] as const;

const program = ts.createProgram(
  RUNTIMES.map(({ entry }) => resolve(ROOT, "dist", entry)),
  { strict: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true },
);
const checker = program.getTypeChecker();

/** The properties of the exported type `name` of `entry`, as a user's editor sees them. */
function optionsOf(entry: string, name: string): string[] {
  const file = program.getSourceFile(resolve(ROOT, "dist", entry));
  if (!file) throw new Error(`dist/${entry} is missing: run npm run build first`);
  const module = checker.getSymbolAtLocation(file)!;
  const exported = checker.getExportsOfModule(module).find((symbol) => symbol.name === name);
  if (!exported) throw new Error(`dist/${entry} exports no ${name}`);
  const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  const type = checker.getDeclaredTypeOfSymbol(symbol);
  return checker
    .getPropertiesOfType(type)
    .map((property) => property.name)
    .sort();
}

/** docs/options.md's table: option → the runtimes its row names. */
function documented(): Map<string, Set<string>> {
  const rows = new Map<string, Set<string>>();
  for (const line of readFileSync(resolve(ROOT, "docs/options.md"), "utf8").split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim());
    const option = /^`(\w+)`/.exec(cells[1] ?? "")?.[1];
    if (!option || cells.length < 4) continue;
    rows.set(option, new Set((cells[2] ?? "").split(",").map((runtime) => runtime.trim())));
  }
  return rows;
}

const problems: string[] = [];
const table = documented();
const takenBy = new Map<string, Set<string>>();
for (const { column, entry, type, ...rest } of RUNTIMES) {
  const options = optionsOf(entry, type);
  const limit = "limit" in rest ? rest.limit : undefined;
  console.log(`${column} (${type}): ${options.length} options${limit ? ` (at most ${limit})` : ""}`);
  console.log(`  ${options.join(", ")}`);
  if (limit !== undefined && options.length > limit)
    problems.push(`${type} declares ${options.length} options, over ${limit}`);
  for (const option of options) (takenBy.get(option) ?? takenBy.set(option, new Set()).get(option)!).add(column);
}
for (const [option, runtimes] of takenBy) {
  const row = table.get(option);
  if (!row) {
    problems.push(`\`${option}\` (${[...runtimes].join(", ")}) has no row in docs/options.md`);
    continue;
  }
  const said = [...row].sort().join(", ");
  const taken = [...runtimes].sort().join(", ");
  if (said !== taken) problems.push(`\`${option}\`: docs/options.md says ${said}; the declarations say ${taken}`);
}
for (const option of table.keys())
  if (!takenBy.has(option)) problems.push(`docs/options.md documents \`${option}\`, which no runtime takes`);

if (problems.length > 0) {
  console.error(`\n${problems.length} problem(s):\n${problems.map((problem) => `  ${problem}`).join("\n")}`);
  process.exit(1);
}
console.log(
  "\nevery runtime within its limit; every option in docs/options.md's table, with the runtimes that take it",
);
