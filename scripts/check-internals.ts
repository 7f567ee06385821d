/**
 * npm run check:internals — saver internals are read in src/store/ only. Prints every other line of src/ that touches
 * a checkpoint saver's private parts: its database handles (`.db`, `.pool`), its serializer and statements
 * (`_dump…`, `_load…`, `SQL_STATEMENTS`), the stored shape of a checkpoint (`channel_values`, `channel_versions`) or
 * the delta-channel walk (`getDeltaChannelHistory`); exits 1 if there is any. Everything else asks the ThreadStore.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";

const SRC = resolve(import.meta.dirname, "../src");
const STORE = `store${sep}`;
const INTERNALS =
  /\.(?:db|pool)\b|\b_(?:dump|load)\w*|\bSQL_STATEMENTS\b|\bchannel_(?:values|versions)\b|\bgetDeltaChannelHistory\b/;
/** The script's `--db` flag is a command-line option, not a saver's handle. */
const ALLOWED = /\boptions\.db\b/g;
/** Files with a `db` of their own: the archive's SqliteStore is a BaseStore over its own database, not a saver. */
const OWN_DATABASE = new Set([`archive${sep}sqlite-store.ts`]);

function files(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith(".ts") ? [path] : [];
  });
}

const found: string[] = [];
let checked = 0;
for (const file of files(SRC)) {
  const path = relative(SRC, file);
  if (path.startsWith(STORE) || OWN_DATABASE.has(path)) continue;
  checked++;
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((line, index) => {
      const code = line.replace(/\/\/.*$/, "").replace(ALLOWED, "");
      if (/^\s*(\/\*\*|\*)/.test(line)) return; // doc comments may name what they describe
      if (INTERNALS.test(code)) found.push(`src/${path}:${index + 1}: ${line.trim()}`);
    });
}
if (found.length > 0) {
  console.log(`${found.length} line(s) outside src/store/ read saver internals (ask the ThreadStore instead):`);
  for (const line of found) console.log(`  ${line}`);
  process.exit(1);
}
console.log(`saver internals are read in src/store/ only (${checked} other files checked)`);
