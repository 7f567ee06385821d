/**
 * The script as a person meets it (its `main`, on a thread the demo wrote; a child process where a pipe matters): search prints each hit once with
 * where it is kept, --limit means the token limit everywhere and search counts hits with --hits, inspect's
 * "compactable" answers what compact would do, history shows one row per turn, a typo gets a suggestion, follow-up
 * commands are complete, and output piped into `head` ends quietly.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHistorySearchTool } from "../../src/recall/tool.js";
import { childArgs, ROOT } from "../support/child-entry.js";
import { runScriptInProcess } from "../support/in-process-script.js";
import { runScript, runTs } from "../support/run-script.js";

const THREAD = "seen";
let dir: string;
let db: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "compaction-script-output-"));
  db = join(dir, "demo.sqlite");
  const demo = await runTs("scripts/demo.ts", [], {
    DATABASE_PATH: db,
    DEMO_THREAD_ID: THREAD,
    DEMO_TURNS: "12",
    DEMO_TOKEN_LIMIT: "1500",
    DEMO_TOKEN_DELAY_MS: "0",
  });
  expect(demo.code, demo.stderr).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("counts that agree, each saying what it counts", () => {
  it("report, list and history give the conversation's checkpoints; report names the sub-agents' apart", async () => {
    const history = JSON.parse((await runScriptInProcess(["history", THREAD, "--db", db, "--json"])).stdout) as {
      checkpoints: unknown[];
    };
    const rows = (
      JSON.parse((await runScriptInProcess(["list", "--db", db, "--json"])).stdout) as {
        threads: Array<{ threadId: string; checkpoints: number }>;
      }
    ).threads;
    const own = history.checkpoints.length;
    expect(rows.find((row) => row.threadId === THREAD)?.checkpoints).toBe(own);
    const report = await runScriptInProcess(["report", THREAD, "--db", db]);
    const storage =
      /storage: ([\d,]+) checkpoints of the conversation \+ ([\d,]+) of sub-agents \(subgraph namespaces\)/.exec(
        report.stdout,
      );
    expect(storage, report.stdout).not.toBeNull();
    expect(Number(storage![1]!.replace(/,/g, ""))).toBe(own);
    expect(Number(storage![2]!.replace(/,/g, ""))).toBeGreaterThan(0);
  });

  it("history --transcript and report count the conversation's messages, the summary apart", async () => {
    const json = JSON.parse(
      (await runScriptInProcess(["history", THREAD, "--db", db, "--transcript", "--json"])).stdout,
    ) as { messages: Array<{ source: string }> };
    const summaries = json.messages.filter((message) => message.source === "summary").length;
    const compacted = json.messages.filter((message) => message.source === "transcript").length;
    expect(summaries).toBe(1);
    const messages = json.messages.length - summaries;
    const text = await runScriptInProcess(["history", THREAD, "--db", db, "--transcript"]);
    expect(text.stdout).toContain(
      `${messages} messages: ${compacted} compacted out of the head (in the transcript), ${messages - compacted} in the head and the summary`,
    );
    expect((await runScriptInProcess(["report", THREAD, "--db", db])).stdout).toContain(
      `transcript: ${messages} messages (${compacted} compacted, in the recall index) and the summary`,
    );
  });

  it("search --from on messages that carry no date says so, rather than 'try other words'", async () => {
    const undated = await runScriptInProcess(["search", THREAD, "rounding", "--db", db, "--from", "2024-01-01"]);
    expect(undated.code).toBe(0);
    expect(undated.stdout).toMatch(/the messages that match carry no date \(\d+ match without --from\/--to\)/);
    expect(undated.stdout).not.toContain("Try other words");
  });

  it("the search_history tool called outside a graph run says it searches a run's conversation", async () => {
    const tool = createHistorySearchTool();
    await expect(tool.invoke({ query: "rounding" })).rejects.toThrow(
      /search_history searches the conversation of the graph run that calls it/,
    );
  });
});

describe("search", () => {
  it("prints one block per hit: the hit, where it is kept, the messages around it, nothing twice", async () => {
    const json = await runScript(["search", THREAD, "rounding", "tests", "--db", db, "--json"]);
    expect(json.code, json.stderr).toBe(0);
    const { hits } = JSON.parse(json.stdout) as {
      hits: Array<{
        messageId: string;
        checkpointId: string;
        before: Array<{ messageId: string }>;
        after: Array<{ messageId: string }>;
      }>;
    };
    expect(hits.length).toBeGreaterThan(1);
    const text = await runScript(["search", THREAD, "rounding", "tests", "--db", db]);
    expect(text.code, text.stderr).toBe(0);
    const blocks = text.stdout.split("\n\n").slice(1);
    expect(blocks).toHaveLength(hits.length);
    for (const [index, hit] of hits.entries()) {
      // Where the hit is kept sits in its own block, not in a list after all of them.
      expect(blocks[index]!.startsWith(`${index + 1}. `)).toBe(true);
      expect(blocks[index]).toContain(`message ${hit.messageId} · checkpoint ${hit.checkpointId}`);
    }
    // A message's text is printed once: a neighbour shown before, or that is a hit, is named instead.
    const lines = text.stdout.split("\n").filter((line) => /^ {3}(before|after ) /.test(line));
    const full = lines.filter((line) => !/\((hit \d+|shown under hit \d+)\)$/.test(line));
    const neighbourIds = hits.flatMap((hit) => [...hit.before, ...hit.after].map((message) => message.messageId));
    expect(full.length).toBeLessThanOrEqual(
      new Set(neighbourIds.filter((id) => !hits.some((hit) => hit.messageId === id))).size,
    );
    for (const [index, line] of lines.entries()) if (index > 0) expect(line).not.toBe(lines[index - 1]);
  });

  it("counts hits with --hits; --limit, the token limit, is refused with a pointer", async () => {
    const two = await runScript(["search", THREAD, "rounding", "--db", db, "--hits", "2", "--json"]);
    expect(JSON.parse(two.stdout).hits).toHaveLength(2);
    const limit = await runScript(["search", THREAD, "rounding", "--db", db, "--limit", "2"]);
    expect(limit.code).toBe(2);
    expect(limit.stderr).toMatch(/search takes --hits N for the number of hits; --limit is the token limit/);
    const misplaced = await runScript(["list", "--db", db, "--hits", "2"]);
    expect(misplaced.code).toBe(2);
    expect(misplaced.stderr).toMatch(/--hits is the number of hits of search; list does not take it/);
  });

  it("narrows to one speaker and a date range with --speaker, --from and --to; a bad day names its flag", async () => {
    const all = JSON.parse(
      (await runScript(["search", THREAD, "rounding", "tests", "--db", db, "--json", "--hits", "20"])).stdout,
    ).hits as Array<{ name?: string; role: string; date?: string }>;
    const speakers = [...new Set(all.map((hit) => (hit.name || hit.role).toLowerCase()))];
    expect(speakers.length).toBeGreaterThan(1);
    const one = await runScript([
      "search",
      THREAD,
      "rounding",
      "tests",
      "--db",
      db,
      "--json",
      "--hits",
      "20",
      "--speaker",
      speakers[0]!.toUpperCase(),
    ]);
    expect(one.code, one.stderr).toBe(0);
    const narrowed = JSON.parse(one.stdout).hits as Array<{ name?: string; role: string }>;
    expect(narrowed.length).toBeGreaterThan(0);
    for (const hit of narrowed) expect((hit.name || hit.role).toLowerCase()).toBe(speakers[0]);
    const future = await runScript(["search", THREAD, "rounding", "--db", db, "--json", "--from", "2999-01-01"]);
    expect(JSON.parse(future.stdout).hits).toEqual([]);
    const bad = await runScript(["search", THREAD, "rounding", "--db", db, "--from", "soon"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--from must be/);
    const misplaced = await runScript(["list", "--db", db, "--speaker", "user"]);
    expect(misplaced.code).toBe(2);
    expect(misplaced.stderr).toMatch(/--speaker narrows a search; list does not take it/);
  });
});

describe("inspect, history and compact", () => {
  it("inspect: compactable exactly when compact (a dry run) would compact, at every limit", async () => {
    const under = await runScript(["inspect", THREAD, "--db", db, "--limit", "1000000"]);
    expect(under.stdout).toMatch(
      /compactable: no — [\d,]+ tokens, not over the limit of 1,000,000: compact writes nothing/,
    );
    const answers: boolean[] = [];
    for (const limit of ["300", "1000", "3000", "1000000"]) {
      const inspected = JSON.parse(
        (await runScript(["inspect", THREAD, "--db", db, "--limit", limit, "--json"])).stdout,
      );
      const dry = JSON.parse(
        (await runScript(["compact", THREAD, "--db", db, "--limit", limit, "--dry-run", "--json"])).stdout,
      );
      expect(inspected.compactable, `--limit ${limit}: ${inspected.reason} / ${dry.reason}`).toBe(
        dry.status === "dry-run",
      );
      answers.push(inspected.compactable);
    }
    expect(answers).toContain(true);
    expect(answers).toContain(false);
  });

  it("history: one row per turn and per compaction; --every-checkpoint and --json show every checkpoint", async () => {
    const json = JSON.parse((await runScript(["history", THREAD, "--db", db, "--json"])).stdout) as {
      checkpoints: Array<{ turnEnd: boolean; compaction: unknown; source: string }>;
    };
    const turns = json.checkpoints.filter((checkpoint) => checkpoint.source === "input").length;
    const compactions = json.checkpoints.filter((checkpoint) => checkpoint.compaction).length;
    expect(compactions).toBeGreaterThan(0);
    const rowsOf = (stdout: string) => stdout.split("\n").filter((line) => /^[0-9a-f]{8}-/.test(line)).length;
    const shown = await runScript(["history", THREAD, "--db", db]);
    expect(rowsOf(shown.stdout)).toBeLessThanOrEqual(turns + compactions + 1);
    expect(rowsOf(shown.stdout)).toBeGreaterThanOrEqual(turns - 1);
    expect(shown.stdout).toMatch(
      new RegExp(
        `${json.checkpoints.length} checkpoints, ${compactions} compaction\\(s\\); \\d+ step\\(s\\) inside turns not shown \\(--every-checkpoint\\)`,
      ),
    );
    expect(rowsOf((await runScript(["history", THREAD, "--db", db, "--every-checkpoint"])).stdout)).toBe(
      json.checkpoints.length,
    );
    expect(json.checkpoints.at(-1)!.turnEnd).toBe(true);
  });

  it("compact's undo hint is a complete command", async () => {
    const compacted = await runScript(["compact", THREAD, "--db", db, "--limit", "900"]);
    expect(compacted.code, compacted.stderr).toBe(0);
    const hint = /undo with: (npm run compact -- restore .+)\)$/m.exec(compacted.stdout);
    expect(hint, compacted.stdout).not.toBeNull();
    const args = hint![1]!.replace("npm run compact -- ", "").split(" ");
    const restored = await runScript([...args, "--json"]);
    expect(restored.code, restored.stderr).toBe(0);
  });
});

describe("mistakes and pipes", () => {
  it("a mistyped command or option gets one balanced line with a suggestion", async () => {
    const command = await runScript(["inpsect", THREAD, "--db", db]);
    expect(command.code).toBe(2);
    expect(command.stderr.trim()).toMatch(
      /^compact-thread: unknown command "inpsect". Did you mean inspect\? The commands: list, inspect, compact, [a-z, ]+\.$/,
    );
    const option = await runScript(["inspect", THREAD, "--db", db, "--lmit", "3"]);
    expect(option.code).toBe(2);
    expect(option.stderr.trim()).toBe(
      'compact-thread: unknown option --lmit. Did you mean --limit? Run "npm run compact -- inspect --help" for the options.',
    );
    for (const line of [command.stderr, option.stderr]) expect((line.match(/"/g) ?? []).length % 2).toBe(0);
  });

  it("output piped into a reader that stops early ends quietly (no EPIPE stack)", async () => {
    const result = await new Promise<{ code: number | null; stderr: string }>((resolvePromise) => {
      const child = spawn(
        process.execPath,
        [...childArgs("scripts/compact-thread.ts"), "history", THREAD, "--db", db, "--every-checkpoint"],
        {
          cwd: ROOT,
          env: { ...process.env, NO_COLOR: "1", OPENAI_API_KEY: "" },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      // Like `| head -0`: the reader is gone before the script writes, so every write meets a closed pipe.
      child.stdout.destroy();
      child.on("close", (code) => resolvePromise({ code, stderr }));
    });
    expect(result.stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(result.code).toBe(0);
  });
});
