/**
 * The terminal sessions the docs quote are recorded, never typed: a block between `<!-- session:name -->` and
 * `<!-- /session:name -->` holds a fenced block of `$ command` lines, each followed by what it printed. Replaying a
 * session runs its commands exactly as printed, one after another, in a scratch copy of the project (its package.json,
 * sources and the demo's conversation, a fresh data/ folder), with no colour and no OpenAI key.
 *
 * `npm run docs:sessions` replays every session and writes what the commands printed into the pages;
 * `npm run check:docs` (in .ci/run) replays them and fails when a page's figures have drifted from what its commands
 * print.
 * Checkpoint ids (they encode the time of the run), the scratch folder's path and byte counts (within 1%: a
 * checkpoint's metadata holds timings, and a file its pages) are the only parts compared loosely (sameSession).
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
export const ROOT = resolve(import.meta.dirname, "../..");
/** What a scratch copy of the project needs to run `npm start` and `npm run compact`. */
const LINKED = ["package.json", "node_modules", "scripts", "src", "test", "tsconfig.json"];
/** The scratch folder's path as the pages show it. */
const SCRATCH = "/…";

export interface Session {
  page: string;
  name: string;
  /** The block's text between the markers, fences included. */
  text: string;
  commands: string[];
}

export function sessionPages(): string[] {
  return [
    "README.md",
    ...readdirSync(join(ROOT, "docs"))
      .filter((name) => name.endsWith(".md"))
      .map((name) => `docs/${name}`),
  ];
}

/** The sessions of one page, in order. */
export function sessionsOf(page: string, markdown: string): Session[] {
  return [...markdown.matchAll(/<!-- session:([\w-]+) -->\n([\s\S]*?)<!-- \/session:\1 -->/g)].map(
    ([, name, text]) => ({
      page,
      name: name!,
      text: text!,
      commands: text!
        .split("\n")
        .filter((line) => line.startsWith("$ "))
        .map((line) => line.slice(2)),
    }),
  );
}

/** Runs a session's commands in a fresh scratch project; returns the block as the commands printed it. */
export async function replay(session: Session): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), `docs-session-${session.name}-`));
  try {
    for (const entry of LINKED) symlinkSync(join(ROOT, entry), join(dir, entry));
    mkdirSync(join(dir, "data"));
    symlinkSync(join(ROOT, "data/demo-conversation.json"), join(dir, "data/demo-conversation.json"));
    // The demo streams without its typing delay: the same output, sooner.
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NO_COLOR: "1",
      DEMO_TOKEN_DELAY_MS: "0",
      npm_config_update_notifier: "false",
    };
    for (const name of [
      "OPENAI_API_KEY",
      "DATABASE_PATH",
      "POSTGRES_URL",
      "TOKEN_LIMIT",
      "COMPACTION_RATIO",
      "TOKEN_MODEL",
      "FORCE_COLOR",
    ])
      delete env[name];
    const lines: string[] = [];
    for (const command of session.commands) {
      const { stdout } = await run("bash", ["-o", "pipefail", "-c", command], {
        cwd: dir,
        env,
        maxBuffer: 64 * 1024 * 1024,
      }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
        throw new Error(
          `${session.page} session "${session.name}": \`${command}\` failed\n${error.stderr ?? ""}${error.message}`,
        );
      });
      const printed = stdout.replaceAll(dir, SCRATCH).replace(/\s+$/, "");
      lines.push(`$ ${command}`, ...(printed === "" ? [] : printed.split("\n")));
    }
    return `\`\`\`\n${lines.join("\n")}\n\`\`\`\n`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A block with the time of its run taken out: checkpoint ids (time-ordered UUIDs) and run ids become placeholders. */
export function comparable(block: string): string {
  return block
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, "<id>")
    .replace(/run-[0-9a-f]{8}-/g, "run-<id>-");
}

/**
 * Byte counts in the script's output ("7,504,380 bytes of checkpoints, 2,418,384 of pending writes"; a prune's
 * "file: 9,818,112 bytes, 4,321,280 of them free pages").
 */
const BYTES = /([\d,]+)( bytes of checkpoints, | bytes, )([\d,]+)( of pending writes| of them free pages)/g;

/**
 * Whether a replay prints what the page shows. Checkpoint ids aside, every character must match, except byte counts:
 * a checkpoint's metadata holds the compaction's timings in milliseconds, so its size moves by a few bytes from run
 * to run; those must agree within 1%.
 */
export function sameSession(page: string, printed: string): boolean {
  const bytesOf = (text: string) =>
    [...comparable(text).matchAll(BYTES)].flatMap((match) =>
      [match[1]!, match[3]!].map((value) => Number(value.replace(/,/g, ""))),
    );
  const shape = (text: string) => comparable(text).replace(BYTES, "<bytes>$2<bytes>$4");
  if (shape(page) !== shape(printed)) return false;
  const expected = bytesOf(page);
  const actual = bytesOf(printed);
  return (
    expected.length === actual.length &&
    expected.every((value, index) => Math.abs(value - actual[index]!) <= value * 0.01)
  );
}

/** The page with each session's block replaced by `blocks[name]`. */
export function withSessions(markdown: string, blocks: Record<string, string>): string {
  return markdown.replace(
    /(<!-- session:([\w-]+) -->\n)[\s\S]*?(<!-- \/session:\2 -->)/g,
    (whole, open: string, name: string, close: string) =>
      blocks[name] === undefined ? whole : `${open}${blocks[name]}${close}`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const check = process.argv.includes("--check");
  let drifted = 0;
  for (const page of sessionPages()) {
    const markdown = readFileSync(join(ROOT, page), "utf8");
    const sessions = sessionsOf(page, markdown);
    if (sessions.length === 0) continue;
    const blocks: Record<string, string> = {};
    for (const session of sessions) {
      const printed = await replay(session);
      blocks[session.name] = printed;
      const same = sameSession(session.text, printed);
      if (!same) drifted++;
      console.log(
        `${page}: session ${session.name} (${session.commands.length} commands) ${check ? (same ? "prints what the page shows" : "has drifted") : "recorded"}`,
      );
      if (check && !same) console.log(`--- the page\n${session.text}--- the commands print\n${printed}`);
    }
    if (!check) writeFileSync(join(ROOT, page), withSessions(markdown, blocks));
  }
  if (check && drifted > 0) {
    console.error(`${drifted} session(s) drifted: run npm run docs:sessions and review the figures it writes.`);
    process.exit(1);
  }
}
