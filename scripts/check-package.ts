/**
 * npm run check:package — the package as a user receives it. Packs the tarball (prepack builds dist), lints it
 * with publint and @arethetypeswrong/cli, then installs it into a temporary strict TypeScript project with only
 * the required peer dependencies, compiles and runs an ES module and a CommonJS consumer, checks there is one
 * @langchain/core, and compiles the TypeScript examples of the README and every docs page. Exits non-zero on the first failure.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import { readmeExamples } from "./check-package/readme-examples.js";
import { brokenShippedLinks } from "./check-package/links.js";
import { installLines, installTable, packageName, testedSpec } from "./check-package/install-lines.js";

const ROOT = resolve(import.meta.dirname, "..");
const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  version: string;
  devDependencies: Record<string, string>;
};
const work = mkdtempSync(join(tmpdir(), "langgraph-compaction-package-"));
const steps: Array<{ step: string; seconds: number; result: string }> = [];

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, npm_config_update_notifier: "false" },
  });
}

async function step(name: string, body: () => string | Promise<string>): Promise<void> {
  const started = performance.now();
  try {
    const result = await body();
    steps.push({ step: name, seconds: (performance.now() - started) / 1000, result });
  } catch (error) {
    const output = error as { stdout?: string; stderr?: string; message: string };
    console.error(`✗ ${name}\n${output.stdout ?? ""}${output.stderr ?? ""}${output.message}`);
    printTable();
    process.exit(1);
  }
}

function printTable(): void {
  console.log("\n| step | seconds | result |\n| --- | ---: | --- |");
  for (const { step: name, seconds, result } of steps) console.log(`| ${name} | ${seconds.toFixed(1)} | ${result} |`);
}

/** `name@range` as this project's devDependencies pin it, so the consumer gets the versions tested here. */
const pinned = (name: string) => `${name}@${manifest.devDependencies[name]}`;

/** The install paths of a package in the consumer (npm ls exits non-zero when there is none). */
function installedCopies(name: string): string[] {
  try {
    return run("npm", ["ls", name, "--all", "--parseable"], consumer).trim().split("\n").filter(Boolean);
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? "")
      .trim()
      .split("\n")
      .filter(Boolean);
  }
}

let tarball = "";
let shipped: string[] = [];
await step("build + npm pack", () => {
  run("npm", ["run", "build"], ROOT);
  const [packed] = JSON.parse(
    run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], ROOT),
  ) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = join(work, packed!.filename);
  shipped = packed!.files.map((file) => file.path);
  return `${packed!.filename}, ${packed!.files.length} files`;
});

/** The root entry stays small (what a user does: wrap, compact a stored thread, read the transcript, count, summarize). */
const MAX_ROOT_VALUES = 25;

await step(
  `the root's runtime names (<= ${MAX_ROOT_VALUES}); no published type can reach the store's compare-and-swap`,
  async () => {
    const root = Object.keys((await import(join(ROOT, "dist/index.mjs"))) as Record<string, unknown>);
    if (root.length > MAX_ROOT_VALUES)
      throw new Error(
        `the root entry exports ${root.length} runtime names (at most ${MAX_ROOT_VALUES}): ${root.join(", ")}`,
      );
    const declarations = shipped.filter((path) => /\.d\.[cm]ts$/.test(path));
    const reaching = declarations.filter((path) => /\breplaceHead\b/.test(readFileSync(join(ROOT, path), "utf8")));
    if (reaching.length > 0)
      throw new Error(
        `published declarations name replaceHead (a write without the engine's validation and lock): ${reaching.join(", ")}`,
      );
    return `${root.length} names; ${declarations.length} declaration files, none names replaceHead`;
  },
);

await step("links of the shipped pages name shipped files", () => {
  const broken = brokenShippedLinks(shipped, (path) => readFileSync(join(ROOT, path), "utf8"));
  if (broken.length > 0) throw new Error(`links to files the tarball does not ship:\n${broken.join("\n")}`);
  return `${shipped.filter((path) => path.endsWith(".md")).length} pages, every relative link shipped`;
});

await step("publint (strict)", async () => {
  const bytes = readFileSync(tarball);
  const { messages, pkg } = await publint({
    pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) },
    strict: true,
    level: "suggestion",
  });
  if (messages.length > 0)
    throw new Error(messages.map((message) => `${message.type}: ${formatMessage(message, pkg)}`).join("\n"));
  return "no messages";
});

await step("@arethetypeswrong/cli", () => {
  run(join(ROOT, "node_modules/.bin/attw"), [tarball, "--format", "ascii"], ROOT);
  return "no problems (node10, node16 CJS/ESM, bundler)";
});

const consumer = join(work, "consumer");
mkdirSync(consumer);
cpSync(join(ROOT, "scripts/check-package/consumer"), consumer, { recursive: true });
writeFileSync(
  join(consumer, "package.json"),
  JSON.stringify({ name: "strict-consumer", private: true, type: "module" }, null, 2),
);
const strict = {
  strict: true,
  module: "nodenext",
  moduleResolution: "nodenext",
  target: "es2022",
  skipLibCheck: false,
  types: ["node"],
};
writeFileSync(
  join(consumer, "tsconfig.json"),
  JSON.stringify({ compilerOptions: { ...strict, outDir: "out" }, include: ["*.mts", "*.cts"] }, null, 2),
);

await step("install tarball + required peers only", () => {
  const peers = ["@langchain/core", "@langchain/langgraph", "@langchain/langgraph-checkpoint"].map(pinned);
  run(
    "npm",
    ["install", "--no-audit", "--no-fund", tarball, ...peers, pinned("typescript"), pinned("@types/node")],
    consumer,
  );
  for (const optional of ["better-sqlite3", "pg", "@langchain/openai"]) {
    if (installedCopies(optional).length > 0) throw new Error(`${optional} was installed, it is an optional peer`);
  }
  return "better-sqlite3, pg, @langchain/openai not installed";
});

await step("one @langchain/core", () => {
  const copies = new Set(installedCopies("@langchain/core"));
  if (copies.size !== 1) throw new Error(`@langchain/core installed ${copies.size} times:\n${[...copies].join("\n")}`);
  return "1 copy";
});

await step("strict tsc: ESM and CJS consumers", () => {
  run(join(consumer, "node_modules/.bin/tsc"), ["-p", "."], consumer);
  return "strict, nodenext, no skipLibCheck";
});

await step("run ESM consumer (import)", () => run(process.execPath, ["out/esm.mjs"], consumer).trim());
await step("run CJS consumer (require)", () => run(process.execPath, ["out/cjs.cjs"], consumer).trim());

await step("OPENAI_API_KEY without @langchain/openai: the offline summarizer, with a warning", () => {
  const probe = join(consumer, "openai-fallback.mjs");
  writeFileSync(
    probe,
    `import { createDefaultSummarizer } from "langgraph-compaction/internal";
const warnings = [];
process.on("warning", (warning) => warnings.push(warning));
const first = createDefaultSummarizer({ env: { OPENAI_API_KEY: "sk-test-not-a-key" } });
const second = createDefaultSummarizer({ env: { OPENAI_API_KEY: "sk-test-not-a-key" } });
await new Promise((resolve) => setTimeout(resolve, 0));
const said = warnings.filter((warning) => warning.code === "LANGGRAPH_COMPACTION_NO_OPENAI");
if (first.name !== "extractive" || second.name !== "extractive") throw new Error("expected the offline summarizer, got " + first.name);
if (said.length !== 1 || !said[0].message.includes("npm install @langchain/openai")) throw new Error("expected one warning naming the package, got " + said.length);
console.log(first.name + ", warned once");
`,
  );
  return run(process.execPath, [probe], consumer).trim();
});

await step(
  "langgraph-compaction/testing without vitest: the scripted model works, compactionSpec says MISSING_DEPENDENCY",
  () => {
    if (installedCopies("vitest").length > 0) throw new Error("vitest was installed, it is an optional peer");
    const esm = join(consumer, "testing-without-vitest.mjs");
    writeFileSync(
      esm,
      `import { ScriptedChatModel, compactionSpec } from "langgraph-compaction/testing";
const model = new ScriptedChatModel({ reply: (messages) => ({ content: "heard " + messages.length }) });
const reply = await model.invoke("hello");
if (reply.content !== "heard 1") throw new Error("scripted reply: " + reply.content);
try {
  compactionSpec({ name: "x", createSaver: async () => { throw new Error("unused"); } });
  throw new Error("compactionSpec ran without vitest");
} catch (error) {
  if (error.code !== "MISSING_DEPENDENCY" || !error.message.includes("npm install vitest")) throw error;
  console.log("ESM: " + reply.content + "; " + error.code);
}
`,
    );
    const cjs = join(consumer, "testing-without-vitest.cjs");
    writeFileSync(
      cjs,
      `const { ScriptedChatModel, compactionSpec } = require("langgraph-compaction/testing");
new ScriptedChatModel({ reply: () => ({ content: "ok" }) }).invoke("hi").then((reply) => {
  try {
    compactionSpec({ name: "x", createSaver: async () => { throw new Error("unused"); } });
    throw new Error("compactionSpec ran under require()");
  } catch (error) {
    if (error.code !== "MISSING_DEPENDENCY") throw error;
    console.log("CJS: " + reply.content + "; " + error.code);
  }
});
`,
    );
    return `${run(process.execPath, [esm], consumer).trim()}; ${run(process.execPath, [cjs], consumer).trim()}`;
  },
);

await step("the script from the tarball (npx compact-thread)", () => {
  const bin = join(consumer, "node_modules/.bin/compact-thread");
  const version = run(bin, ["--version"], consumer).trim();
  if (version !== manifest.version)
    throw new Error(`--version printed ${version}, package.json says ${manifest.version}`);
  try {
    run(bin, ["list", "--db", join(consumer, "package.json")], consumer);
    throw new Error("list without better-sqlite3 succeeded");
  } catch (error) {
    const { status, stderr } = error as { status?: number; stderr?: string };
    // Both missing SQLite packages in one line, not one run at a time.
    if (status !== 2 || !String(stderr).includes("npm install better-sqlite3 @langchain/langgraph-checkpoint-sqlite")) {
      throw new Error(
        `expected exit 2 naming better-sqlite3 and @langchain/langgraph-checkpoint-sqlite, got ${status}: ${stderr}`,
      );
    }
  }
  const help = run(bin, ["--help"], consumer);
  if (help.includes("npm run") || !help.includes("npx compact-thread"))
    throw new Error(`the installed script's help speaks of this repository:\n${help}`);
  return `--version ${version}; without the SQLite packages: exit 2, names both; help speaks of npx compact-thread`;
});

const pages = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];
const readme = readFileSync(join(ROOT, "README.md"), "utf8");

/** A fresh strict project with exactly `packages` (and TypeScript); returns its folder. */
function projectWith(name: string, packages: string[]): string {
  const dir = join(work, name);
  mkdirSync(join(dir, "examples"), { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, private: true, type: "module" }, null, 2));
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { ...strict, noEmit: true }, include: ["examples/*.mts"] }, null, 2),
  );
  // Types only: no native build is needed to compile.
  run(
    "npm",
    [
      "install",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      ...new Set([
        ...packages.map((spec) => testedSpec(spec, tarball, manifest.devDependencies)),
        pinned("typescript"),
        pinned("@types/node"),
      ]),
    ],
    dir,
  );
  return dir;
}

await step("strict tsc: the README's quickstart, with only the install lines above it", () => {
  const above = readme.slice(0, readme.indexOf("```ts"));
  const packages = installLines(above).flat().map(packageName);
  const [quickstart] = readmeExamples(readme);
  const dir = projectWith("quickstart", packages);
  writeFileSync(join(dir, "examples", "quickstart.mts"), quickstart!);
  run(join(dir, "node_modules/.bin/tsc"), ["-p", "."], dir);
  return `compiles with: npm install ${packages.join(" ")}`;
});

await step("strict tsc: the examples of the README and every docs page, with the packages the docs install", () => {
  // Every install line of every page and the README's Install table: an example importing a package no install line
  // names does not compile.
  const packages = [
    ...new Set(
      [
        ...pages.flatMap((page) => installLines(readFileSync(join(ROOT, page), "utf8")).flat()),
        ...installTable(readme),
      ].map(packageName),
    ),
  ];
  const dir = projectWith("examples", packages);
  let count = 0;
  for (const page of pages) {
    for (const [index, source] of readmeExamples(readFileSync(join(ROOT, page), "utf8")).entries()) {
      writeFileSync(join(dir, "examples", `${page.replace(/[/.]/g, "_")}-${index + 1}.mts`), source);
      count++;
    }
  }
  run(join(dir, "node_modules/.bin/tsc"), ["-p", "."], dir);
  return `${count} examples of ${pages.length} pages compile with: ${packages.join(" ")}`;
});

printTable();
rmSync(work, { recursive: true, force: true });
