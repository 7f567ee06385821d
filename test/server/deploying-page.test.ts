/**
 * docs/deploying.md's "On LangGraph's Agent Server" steps, followed as a newcomer would from the packed tarball: the
 * page's first bash block in an empty folder (its installs taken from the registry at the versions this project tests,
 * the library from the tarball), the page's src/agent.ts and langgraph.json written as printed, the page's command
 * starting the Agent Server, then a thread talked to through the server's HTTP API until it compacts. OpenAI is a local
 * server speaking the Chat Completions protocol (OPENAI_BASE_URL): the agent's replies are long, the summaries short.
 *
 * Run by `npm run test:server` (called from .ci/run).
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fencedBlocks } from "../../scripts/check-package/readme-examples.js";
import { testedSpec } from "../../scripts/check-package/install-lines.js";
import { PROVENANCE_KEY } from "../../src/messages/summary-message.js";
import { startChatCompletionsServer, type ChatCompletionsServer } from "../support/fakes/chat-completions-server.js";
import { ROOT } from "../support/child-entry.js";
import { freePort, SERVER_ENV, untilListening } from "./server-process.js";

const page = readFileSync(join(ROOT, "docs/deploying.md"), "utf8");
const section = page.slice(
  page.indexOf("### On LangGraph's Agent Server"),
  page.indexOf("| what | where it runs |", page.indexOf("### On LangGraph's Agent Server")),
);
const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  devDependencies: Record<string, string>;
};

/** An `npm install` line of the page as run here: the library from the tarball, the rest at the versions tested here. */
function installHere(line: string, tarball: string): string {
  return line.replace(/^(\s*npm install)((?:\s+-D)?)\s+(.*)$/, (_, command: string, dev: string, rest: string) => {
    const specs = rest
      .trim()
      .split(/\s+/)
      .map((spec) => `'${testedSpec(spec, tarball, manifest.devDependencies)}'`);
    return `${command}${dev} --no-audit --no-fund ${specs.join(" ")}`;
  });
}

/** A long reply (about 3,000 tokens), so a thread passes the page's tokenLimit of 32,000 in a dozen turns. */
function longReply(turn: number): string {
  return Array.from(
    { length: 250 },
    (_, index) => `Shipment ${turn}-${index} left depot ${index % 17} at gate ${(index * 7) % 23}.`,
  ).join(" ");
}

describe("docs/deploying.md: the Agent Server, run locally as the page says", () => {
  let work: string;
  let project: string;
  let openai: ChatCompletionsServer;
  let server: ChildProcess | undefined;
  let output = () => "";
  let client: Client;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "deploying-page-"));
    execFileSync("npm", ["run", "build"], { cwd: ROOT, stdio: "ignore" });
    const packed = join(work, "pack");
    mkdirSync(packed);
    execFileSync("npm", ["pack", "--ignore-scripts", "--pack-destination", packed], { cwd: ROOT, stdio: "ignore" });
    const tarball = join(
      packed,
      readdirSync(packed).find((name) => name.endsWith(".tgz"))!,
    );

    // Step 1, the page's first bash block, line by line in one shell.
    const [setup] = fencedBlocks(section, "bash");
    expect(setup).toContain("npm install langgraph-compaction");
    const script = setup!
      .split("\n")
      .map((line) => installHere(line, tarball))
      .join("\n");
    const folder = /mkdir (\S+)/.exec(setup!)![1]!;
    const install = (env: Record<string, string>) =>
      execFileSync("bash", ["-euo", "pipefail", "-c", script], {
        cwd: work,
        stdio: "pipe",
        env: { ...process.env, npm_config_update_notifier: "false", ...env },
      });
    try {
      install({});
    } catch (error) {
      // The registry not answering, or a stale copy of a package's versions (ETARGET for a version it lists): the
      // steps run once more, every package's versions fetched afresh. Any other failure is the page's.
      const said = String((error as { stderr?: unknown }).stderr ?? error);
      if (!/ETARGET|ECONNRESET|ETIMEDOUT|EAI_AGAIN|E50\d/.test(said)) throw error;
      rmSync(join(work, folder), { recursive: true, force: true });
      install({ npm_config_prefer_online: "true" });
    }
    project = join(work, folder);

    // Steps 2 and 3: the files as printed.
    const agent = fencedBlocks(section, "ts").find((block) => block.startsWith("// src/agent.ts"))!;
    mkdirSync(join(project, "src"));
    writeFileSync(join(project, "src/agent.ts"), agent);
    writeFileSync(join(project, "langgraph.json"), fencedBlocks(section, "json")[0]!);

    // Step 4: the page's command, on a free port, with OpenAI served locally.
    openai = await startChatCompletionsServer((request, index) =>
      request.tools?.length
        ? { content: longReply(index) }
        : { content: "The user asked about shipments; the assistant listed their depots and gates." },
    );
    const command = fencedBlocks(section, "bash")
      .map((block) => block.trim())
      .find((block) => block.includes("langgraph-cli dev"))!;
    const port = await freePort();
    const started = command.replace("sk-...", "sk-test-offline").replace(/--port \d+/, `--port ${port}`);
    expect(started).toContain(`--port ${port}`);
    server = spawn("bash", ["-c", started], {
      cwd: project,
      detached: true,
      env: { ...process.env, OPENAI_BASE_URL: openai.url, ...SERVER_ENV },
      stdio: ["ignore", "pipe", "pipe"],
    });
    ({ output } = await untilListening(server));
    client = new Client({ apiUrl: `http://127.0.0.1:${port}` });
  }, 900_000);

  afterAll(async () => {
    if (server?.pid) {
      try {
        process.kill(-server.pid, "SIGTERM");
      } catch {
        // Already gone.
      }
    }
    await openai?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("compacts a thread through the HTTP API: the summary in the state, every message in the state or the store's transcript", async () => {
    const thread = await client.threads.create();
    const seen = new Set<string>();
    type Wire = { id?: string; type: string; additional_kwargs?: Record<string, unknown> };
    let messages: Wire[] = [];
    let turns = 0;
    for (; turns < 30; turns++) {
      await client.runs.wait(thread.thread_id, "agent", {
        input: { messages: [{ role: "user", content: `Where did shipment batch ${turns} go?` }] },
      });
      messages = ((await client.threads.getState(thread.thread_id)).values as { messages: Wire[] }).messages;
      for (const message of messages)
        if (message.id && !message.additional_kwargs?.[PROVENANCE_KEY]) seen.add(message.id);
      if (messages.some((message) => message.additional_kwargs?.[PROVENANCE_KEY])) break;
    }
    expect(
      messages.some((message) => message.additional_kwargs?.[PROVENANCE_KEY]),
      `no summary after ${turns} turns\n${output().slice(-2000)}`,
    ).toBe(true);
    expect(messages.length).toBeLessThan(seen.size);
    // The summary was written by the default summarizer through OPENAI_BASE_URL: a request without tools.
    expect(openai.requests.some((request) => !request.body.tools?.length)).toBe(true);

    const transcript = await client.store.searchItems(["langgraph-compaction", "transcript", thread.thread_id], {
      limit: 1_000,
    });
    expect(transcript.items.length).toBeGreaterThan(0);
    const kept = new Set([...transcript.items.map((item) => item.key), ...messages.map((message) => message.id)]);
    expect([...seen].filter((id) => !kept.has(id))).toEqual([]);
  });
});
