/**
 * The bench tables in docs/benchmarks.md are written by the bench scripts, never by hand: each part runs inside
 * `readmeBlock(name, …)`, which collects the tables it prints and replaces the page's block between
 * `<!-- bench:name -->` and `<!-- /bench:name -->` with them, stamped with the date and the machine.
 * `BENCH_README=0` leaves the page alone; a partial run (a subset of contenders, other budgets) passes
 * `write: false`.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";

const README = resolve(import.meta.dirname, "../../docs/benchmarks.md");
let capture: string[] | undefined;

/** Called by printTable (and for notes printed under a table) with the text it printed. */
export function recordPrinted(text: string): void {
  capture?.push(text);
}

export async function readmeBlock<T>(name: string, run: () => Promise<T>, { write = true } = {}): Promise<T> {
  const outer = capture;
  const printed: string[] = [];
  capture = printed;
  try {
    const result = await run();
    if (write && process.env.BENCH_README !== "0" && printed.length > 0) writeBlock(name, printed.join("\n"));
    return result;
  } finally {
    capture = outer;
    outer?.push(...printed);
  }
}

function writeBlock(name: string, body: string): void {
  const start = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const text = readFileSync(README, "utf8");
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) {
    console.warn(`docs/benchmarks.md has no ${start} … ${end} block: not updated`);
    return;
  }
  const stamp = `${new Date().toISOString().slice(0, 10)}, node ${process.version}, ${process.platform}/${process.arch}, ${availableParallelism()} cores`;
  const block = `${start}\n\`\`\`\n$ npm run bench:${name}    # ${stamp}\n${body.trim()}\n\`\`\`\n`;
  writeFileSync(README, text.slice(0, from) + block + text.slice(to));
  console.log(`docs/benchmarks.md: the bench:${name} block now holds this run's tables`);
}
