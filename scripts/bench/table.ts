import { monitorEventLoopDelay } from "node:perf_hooks";
import { recordPrinted } from "./readme-block.js";

/** Print rows as an aligned text table (and hand it to the docs/benchmarks.md block being written, if any). */
export function printTable(title: string, rows: Array<Record<string, string | number>>): void {
  if (rows.length === 0) return;
  const headers = Object.keys(rows[0]!);
  const cells = rows.map((row) => headers.map((header) => String(row[header] ?? "")));
  const widths = headers.map((header, column) => Math.max(header.length, ...cells.map((row) => row[column]!.length)));
  const line = (values: string[]) =>
    values
      .map((value, column) => value.padEnd(widths[column]!))
      .join("  ")
      .trimEnd();
  const text = [title, line(headers), line(widths.map((width) => "-".repeat(width))), ...cells.map(line)].join("\n");
  console.log(`\n${text}`);
  recordPrinted(`\n${text}`);
}

/** Print a line under a table (a note), also into the docs/benchmarks.md block being written. */
export function printNote(text: string): void {
  console.log(text);
  recordPrinted(text);
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The value at fraction `q` (0..1) of the sorted values (nearest rank). */
export function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export function time<T>(run: () => T): { result: T; ms: number } {
  const start = performance.now();
  const result = run();
  return { result, ms: performance.now() - start };
}

/** The event loop's largest stalls while `run` runs: monitorEventLoopDelay at 10 ms resolution and a 1 ms timer's largest gap. */
export async function eventLoopDuring(
  run: () => Promise<void>,
): Promise<{ ms: number; maxMs: number; p99Ms: number; gapMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  let last = performance.now();
  let gap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, 1);
  histogram.enable();
  const started = performance.now();
  await run();
  const ms = performance.now() - started;
  histogram.disable();
  clearInterval(timer);
  gap = Math.max(gap, performance.now() - last);
  return { ms, maxMs: histogram.max / 1e6, p99Ms: histogram.percentile(99) / 1e6, gapMs: gap };
}
