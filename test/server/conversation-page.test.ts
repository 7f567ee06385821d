/// <reference lib="dom" />
/**
 * The example chat page (examples/conversation-ui: plain HTML, the SDK and langgraph-compaction/client, bundled by
 * esbuild) in a real headless browser (Debian's chromium through puppeteer-core) against LangGraph's Agent Server
 * run locally (the fixture: createAgent with compactionMiddleware). Thirty turns typed into the page: afterwards the
 * page shows every message the thread ever held — taken from the server's own history of every checkpoint, not from
 * the library — in order, and a marker after each compaction's messages; the state the model reads is compact.
 *
 * Run by `npm run test:server` (called from .ci/run).
 */
import type { ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import type { Server } from "node:http";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import type { Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROVENANCE_KEY } from "../../src/messages/provenance.js";
import { ROOT } from "../support/child-entry.js";
import { findChromium } from "../support/chromium.js";
import { turnText } from "../support/in-graph-suite.js";
import { openExamplePage } from "../support/example-page.js";
import { FIXTURE, freePort, startFixtureServer } from "./server-process.js";

const TURNS = 30;
const chromium = findChromium();
if ("skip" in chromium) console.warn(chromium.skip);

interface WireMessage {
  id?: string;
  type: string;
  content: unknown;
  additional_kwargs?: Record<string, unknown>;
}

describe.skipIf("skip" in chromium)("the example page on the Agent Server, in a headless browser", () => {
  let agentServer: { child: ChildProcess; output: () => string };
  let apiUrl: string;
  let opened: Awaited<ReturnType<typeof openExamplePage>>;
  let page: { server: Server; url: string; dir: string };
  let browser: Browser;

  beforeAll(async () => {
    const port = await freePort();
    agentServer = await startFixtureServer(port);
    apiUrl = `http://127.0.0.1:${port}`;
    ({ page, browser } = opened = await openExamplePage((chromium as { path: string }).path));
  });
  afterAll(async () => {
    await opened?.close();
    if (agentServer?.child.pid) process.kill(-agentServer.child.pid, "SIGTERM");
    rmSync(join(FIXTURE, ".langgraph_api"), { recursive: true, force: true });
  });

  it("after 30 turns and compactions, shows every message the thread held, in order, with a marker after each compaction's", async () => {
    const tab = await browser.newPage();
    const problems: string[] = [];
    tab.on("pageerror", (error) => void problems.push(String(error)));
    await tab.goto(`${page.url}/?apiUrl=${encodeURIComponent(apiUrl)}&assistant=agent`, { waitUntil: "load" });
    await tab.waitForFunction(() => document.body.dataset.state === "idle");
    for (let turn = 0; turn < TURNS; turn++) {
      await tab.type("input[name=text]", turnText(turn));
      await tab.keyboard.press("Enter");
      // The page's own signal: the turn streamed, and the conversation was read again.
      await tab.waitForFunction(
        (done) => document.body.dataset.turns === String(done) && document.body.dataset.state === "idle",
        { timeout: 120_000 },
        turn + 1,
      );
      // The newest message is in view: the page followed the conversation to its end.
      expect(
        await tab.evaluate(() => window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 2),
        `turn ${turn}`,
      ).toBe(true);
    }
    expect(problems).toEqual([]);
    expect(await tab.$eval("#error", (line) => (line as HTMLElement).hidden)).toBe(true);

    const threadId = new URL(tab.url()).searchParams.get("thread")!;
    const client = new Client({ apiUrl });
    // Every message the thread ever held, in the order they first appeared, from the server's checkpoints.
    const history = await client.threads.getHistory<{ messages?: WireMessage[] }>(threadId, { limit: 1_000 });
    const everHeld = new Map<string, WireMessage>();
    for (const state of [...history].reverse()) {
      for (const message of state.values.messages ?? [])
        if (message.id && !message.additional_kwargs?.[PROVENANCE_KEY] && !everHeld.has(message.id))
          everHeld.set(message.id, message);
    }
    const summaries = new Set(
      history.flatMap((state) =>
        (state.values.messages ?? [])
          .filter((message) => message.additional_kwargs?.[PROVENANCE_KEY])
          .map((message) => message.id),
      ),
    );
    expect(summaries.size).toBeGreaterThanOrEqual(2);

    const shown = await tab.$$eval("#conversation li", (items) =>
      items.map((item) => ({
        marker: item.classList.contains("compaction-marker"),
        id: (item as HTMLElement).dataset.id ?? "",
        source: (item as HTMLElement).dataset.source ?? "",
        text: item.textContent ?? "",
      })),
    );
    const messages = shown.filter((item) => !item.marker);
    expect(messages.map((item) => item.id)).toEqual([...everHeld.keys()]);
    // What the person typed, every turn of it, in order.
    const typed = messages.filter((item) => everHeld.get(item.id)!.type === "human").map((item) => item.text);
    expect(typed).toEqual(Array.from({ length: TURNS }, (_, turn) => turnText(turn)));
    // A marker after the messages of each compaction, and the state the model reads is the compact one.
    const markers = shown.flatMap((item, index) => (item.marker ? [index] : []));
    expect(markers.length).toBeGreaterThanOrEqual(2);
    for (const at of markers) expect(shown[at - 1]!.source).toBe("transcript");
    const state = await client.threads.getState<{ messages: WireMessage[] }>(threadId);
    expect(state.values.messages.length).toBeLessThan(everHeld.size);
    await tab.screenshot({ path: join(ROOT, ".tmp", "conversation-page.png"), fullPage: true }).catch(() => undefined);
  });
});
