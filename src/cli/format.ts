/** Human output: aligned tables, token bars, colour only on a TTY (and never with NO_COLOR). */

export interface Printer {
  colour: boolean;
  line(text?: string): void;
}

export function createPrinter(
  stream: NodeJS.WriteStream = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
): Printer {
  return { colour: Boolean(stream.isTTY) && !env.NO_COLOR, line: (text = "") => void stream.write(`${text}\n`) };
}

export function paint(printer: Printer, code: number, text: string): string {
  return printer.colour ? `\u001b[${code}m${text}\u001b[0m` : text;
}

export function table(rows: Array<Record<string, string | number>>): string[] {
  if (rows.length === 0) return [];
  const headers = Object.keys(rows[0]!);
  const cells = rows.map((row) => headers.map((header) => String(row[header] ?? "")));
  const widths = headers.map((header, column) => Math.max(header.length, ...cells.map((row) => row[column]!.length)));
  const numeric = headers.map((_, column) => cells.every((row) => /^[\d,.\s%→-]*$/.test(row[column]!)));
  const render = (values: string[]) =>
    values
      .map((value, column) => (numeric[column] ? value.padStart(widths[column]!) : value.padEnd(widths[column]!)))
      .join("  ")
      .trimEnd();
  return [render(headers), render(widths.map((width) => "-".repeat(width))), ...cells.map(render)];
}

export function bar(value: number, max: number, width = 24): string {
  const filled = max > 0 ? Math.min(width, Math.round((value / max) * width)) : 0;
  return `${"█".repeat(filled)}${"·".repeat(width - filled)}`;
}

export function number(value: number | undefined): string {
  return value === undefined ? "-" : value.toLocaleString("en");
}

export function preview(text: string, length = 60): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > length ? `${flat.slice(0, length - 1)}…` : flat;
}

/** A summary is the library's, not a message of the conversation: counts of messages name it apart ("" without one). */
export function andSummaries(summaries: number): string {
  return summaries === 0 ? "" : summaries === 1 ? " and the summary" : ` and ${summaries} summaries`;
}
