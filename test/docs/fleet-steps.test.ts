/**
 * docs/deploying.md's "The fleet on pg-boss, step by step", run as written over a real Postgres: its commands are
 * read from the page (only the URLs filled in: an owner's, and a role without DDL rights for the workers), in order —
 * the owner's first worker creates pg-boss's schema and the queue, the grants, two machines' worth of `watch`
 * processes as the workers' role, SIGTERM to each (exit 0), then `list`. The threads were last written ten minutes
 * ago (threads nobody serves), over the page's limit: the owner's worker compacts the first ones, the fleet the
 * ones written after it; nothing is lost.
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { emptyCheckpoint } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { auditThread } from "../../src/engine/audit.js";
import { isSummaryMessage } from "../../src/messages/summary-message.js";
import { checkpointIdAt } from "../../src/store/checkpoint-time.js";
import { childArgs, ROOT } from "../support/child-entry.js";
import { compactThread } from "../support/run-script.js";

const page = readFileSync(join(ROOT, "docs/deploying.md"), "utf8");
const section = page.slice(
  page.indexOf("### The fleet on pg-boss, step by step"),
  page.indexOf("\n## ", page.indexOf("### The fleet on pg-boss, step by step")),
);
/** The section's shell lines, in order (comments and blank lines left out). */
const lines = [...section.matchAll(/```bash\n([\s\S]*?)```/g)]
  .flatMap((block) => block[1]!.split("\n"))
  .map((line) => line.trim())
  .filter((line) => line !== "" && !line.startsWith("#"));
const TEN_MINUTES_AGO = Date.now() - 10 * 60_000;

/** A thread of `count` messages, its head written ten minutes ago (nobody has served it since). */
async function seedIdle(saver: PostgresSaver, threadId: string, count: number): Promise<void> {
  const messages: BaseMessage[] = Array.from({ length: count }, (_, index) =>
    index % 2 === 0
      ? new HumanMessage({
          id: `${threadId}-${index}`,
          content: `Order ord_${index} of ${threadId}: ${index * 17} EUR.`,
        })
      : new AIMessage({ id: `${threadId}-${index}`, content: `Noted: the order ord_${index - 1} is billed.` }),
  );
  const checkpoint = emptyCheckpoint();
  checkpoint.id = checkpointIdAt(TEN_MINUTES_AGO);
  checkpoint.channel_values = { messages };
  checkpoint.channel_versions = { messages: 1 };
  await saver.put(
    { configurable: { thread_id: threadId, checkpoint_ns: "" } },
    checkpoint,
    { source: "input", step: 0, parents: {} },
    { messages: 1 },
  );
}

/** A page's `npx compact-thread …` line as the script's arguments, its URL variables filled in. */
function scriptArgs(line: string, urls: Record<string, string>): string[] {
  const words = line.replace(/\s*&$/, "").split(/\s+/);
  expect(words.slice(0, 2)).toEqual(["npx", "compact-thread"]);
  return words.slice(2).map((word) => word.replace(/^"\$(\w+)"$/, (_, name: string) => urls[name]!));
}

describe("docs/deploying.md: the fleet on pg-boss, step by step", () => {
  const database = `fleet_steps_${randomUUID().replace(/-/g, "").slice(0, 8)}`;
  const role = `app_${randomUUID().replace(/-/g, "").slice(0, 8)}`;
  const urls: Record<string, string> = {};
  let admin: pg.Client;
  let owner: PostgresSaver;
  beforeAll(async () => {
    const server = inject("postgresUrl");
    admin = new pg.Client({ connectionString: server });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'app'`);
    const ownerUrl = new URL(server);
    ownerUrl.pathname = `/${database}`;
    const appUrl = new URL(ownerUrl);
    appUrl.username = role;
    appUrl.password = "app";
    urls.OWNER_URL = ownerUrl.toString();
    urls.POSTGRES_URL = appUrl.toString();
    owner = PostgresSaver.fromConnString(urls.OWNER_URL);
    await owner.setup();
  });
  afterAll(async () => {
    await owner.end();
    await admin.end();
  });

  it("runs every step as the page writes it: the queue made by the owner, the workers as a role without DDL rights", async () => {
    // The page's install line names the packages the fleet loads.
    expect(lines[0]).toBe("npm install langgraph-compaction pg-boss pg @langchain/langgraph-checkpoint-postgres");
    for (const name of ["pg-boss", "pg", "@langchain/langgraph-checkpoint-postgres"]) import.meta.resolve(name);

    // Step 1: the owner's first worker (pg-boss's schema, the queue; the idle threads over the limit compacted).
    const first = ["early-a", "early-b"];
    for (const thread of first) await seedIdle(owner, thread, 2_000);
    const ownerRun = await compactThread(scriptArgs(lines[1]!, urls));
    expect(ownerRun.code, ownerRun.stderr).toBe(0);
    expect(ownerRun.stdout).toMatch(/2 job\(s\) run: 2 compacted/);
    // The grants, as the page writes them for its role `app` (here a role of this run's own).
    const grants = /^psql "\$OWNER_URL" -c '(.*)'$/.exec(lines[2]!)![1]!.replaceAll(" TO app", ` TO ${role}`);
    const ownerClient = new pg.Client({ connectionString: urls.OWNER_URL });
    await ownerClient.connect();
    await ownerClient.query(grants);
    // The application's role writes its own checkpoint tables (and the transcript's).
    await ownerClient.query(
      `GRANT USAGE ON SCHEMA public TO ${role}; GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`,
    );
    await ownerClient.end();

    // Step 2: two machines' worth of workers, as the role without DDL rights, over threads written since.
    const later = Array.from({ length: 8 }, (_, index) => `later-${index}`);
    for (const thread of later) await seedIdle(owner, thread, 2_000);
    const machine = lines.slice(3, 5);
    expect(machine.every((line) => line.endsWith("&"))).toBe(true);
    expect(section).toContain("# machine B: the same two lines");
    const compacted = new Set<string>();
    let allCompacted!: () => void;
    const done = new Promise<void>((resolve) => (allCompacted = resolve));
    const workers: ChildProcess[] = [...machine, ...machine].map((line) => {
      const child = spawn(process.execPath, [...childArgs("scripts/compact-thread.ts"), ...scriptArgs(line, urls)], {
        cwd: ROOT,
        env: { ...process.env, OPENAI_API_KEY: "", POSTGRES_URL: "", DATABASE_PATH: "", NO_COLOR: "1" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      child.stdout!.on("data", (chunk: Buffer) => {
        for (const [, thread] of chunk.toString().matchAll(/^(later-\d+): compacted/gm)) compacted.add(thread!);
        if (compacted.size === later.length) allCompacted();
      });
      child.stderr!.resume();
      return child;
    });
    await done;

    // Step 3: SIGTERM to each: exit 0.
    const exits = await Promise.all(
      workers.map((child) => {
        const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
        child.kill("SIGTERM");
        return exited;
      }),
    );
    expect(exits).toEqual([0, 0, 0, 0]);

    // Step 4: list shows every thread; each holds a summary now, and nothing is lost.
    const listLine = /`(npx compact-thread list --postgres "\$POSTGRES_URL")`/.exec(section)![1]!;
    const listed = await compactThread(scriptArgs(listLine, urls));
    expect(listed.code, listed.stderr).toBe(0);
    for (const thread of [...first, ...later]) {
      expect(listed.stdout).toContain(thread);
      const config = { configurable: { thread_id: thread } };
      const head = await owner.getTuple(config);
      expect((head!.checkpoint.channel_values.messages as BaseMessage[]).some(isSummaryMessage), thread).toBe(true);
      expect((await auditThread(owner, config)).problems, thread).toEqual([]);
    }
  }, 120_000);
});
