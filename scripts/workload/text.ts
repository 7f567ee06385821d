/**
 * Generators of realistic and pathological text for token-counting tests and benchmarks.
 */
import { createRandom, type Random } from "./random.js";

const WORDS =
  "the agent found three failing tests in the billing service and proposed a fix for the rounding error in invoice totals while the reviewer asked whether the migration would lock the orders table during peak hours so we agreed to schedule it for Sunday night after the backup completes".split(
    " ",
  );
const NAMES = ["Alice Moreau", "Bob Tanaka", "Chen Wei", "Dana Okafor", "Élodie Brun", "Farid Haddad"];
const CJK = "数据库迁移计划已经完成测试结果显示性能提升了百分之三十我们将在周日晚上部署新版本请确认备份";

export function prose(random: Random, sentences: number): string {
  const parts: string[] = [];
  for (let index = 0; index < sentences; index++) {
    const length = random.int(6, 22);
    const words = Array.from({ length }, () => random.pick(WORDS));
    if (random.chance(0.3)) words.splice(random.int(0, length), 0, random.pick(NAMES));
    if (random.chance(0.3)) words.push(`${random.int(1, 99_999)}`);
    parts.push(`${words.join(" ")}${random.pick([".", "!", "?", ";", ":"])}`);
  }
  return parts.join(random.chance(0.2) ? "\n\n" : " ");
}

export function jsonResult(random: Random, items: number): string {
  const rows = Array.from({ length: items }, (_, index) => ({
    id: `ord_${random.int(100_000, 999_999)}`,
    customer: random.pick(NAMES),
    total: Math.round(random.next() * 100_000) / 100,
    status: random.pick(["paid", "refunded", "pending"]),
    lines: index % 3,
  }));
  return random.chance(0.5) ? JSON.stringify(rows) : JSON.stringify(rows, null, 2);
}

export function code(random: Random, lines: number): string {
  const out: string[] = [];
  for (let index = 0; index < lines; index++) {
    const indent = "  ".repeat(random.int(0, 3));
    out.push(
      random.pick([
        `${indent}const total = items.reduce((sum, item) => sum + item.price * item.quantity, 0);`,
        `${indent}if (order.status === "refunded") return null;`,
        `${indent}// TODO(${random.pick(NAMES).split(" ")[0]}): handle currency rounding`,
        `${indent}export async function loadInvoice(id: string): Promise<Invoice> {`,
        `${indent}}`,
        `${indent}throw new Error(\`invoice \${id} not found\`);`,
      ]),
    );
  }
  return out.join("\n");
}

export function cjk(random: Random, length: number): string {
  let out = "";
  while (out.length < length) {
    const start = random.int(0, CJK.length - 10);
    out += CJK.slice(start, start + random.int(5, 10));
    if (random.chance(0.3)) out += random.pick(["，", "。", "、"]);
  }
  return out.slice(0, length);
}

/** Realistic mixed text of roughly `length` characters. */
export function mixedText(seed: number, length: number): string {
  const random = createRandom(seed);
  let out = "";
  while (out.length < length) {
    const kind = random.int(0, 9);
    if (kind < 5) out += prose(random, random.int(1, 6));
    else if (kind < 7) out += jsonResult(random, random.int(1, 8));
    else if (kind < 9) out += code(random, random.int(2, 12));
    else out += cjk(random, random.int(10, 60));
    out += random.pick([" ", "\n", "\n\n", "  "]);
  }
  return out;
}

/** Inputs that make BPE super-linear: one pre-token as long as the whole input, or close to it. */
export function pathologicalInputs(size: number): Record<string, string> {
  const random = createRandom(size);
  const hex = "0123456789abcdef";
  const base64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const cjkRun = Array.from({ length: size }, (_, index) =>
    String.fromCharCode(0x4e00 + ((index * 7919) % 20_000)),
  ).join("");
  let base64 = "";
  while (base64.length < size) base64 += base64Alphabet[random.int(0, 63)];
  let hashes = "";
  while (hashes.length < size) hashes += hex[random.int(0, 15)];
  let minified = "";
  let row = 0;
  while (minified.length < size) {
    minified += JSON.stringify({ id: row, key: `k${row}`, values: [row, row * 2, row * 3], ok: row % 2 === 0 });
    row++;
  }
  return {
    spaces: " ".repeat(size),
    "cjk-run": cjkRun,
    base64: base64.slice(0, size),
    "hex-hashes": hashes.slice(0, size),
    "minified-json": `[${minified}]`.slice(0, size),
    "letters-run": "a".repeat(size),
    "punctuation-run": "=".repeat(size),
  };
}
