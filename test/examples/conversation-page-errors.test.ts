/// <reference lib="dom" />
/**
 * The example conversation page fails visibly, never blank (examples/conversation-ui): in a real headless browser
 * (Debian's chromium), a page whose Agent Server cannot be reached says so and names the address, and a page opened as
 * a file says it must be served over HTTP. `body[data-state]` is "error" in both; the page's own signal, no timing.
 */
import { createServer } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findChromium } from "../support/chromium.js";
import { openExamplePage } from "../support/example-page.js";

const chromium = findChromium();
if ("skip" in chromium) console.warn(chromium.skip);

/** A port nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe.skipIf("skip" in chromium)("the example page's error states, in a headless browser", () => {
  let opened: Awaited<ReturnType<typeof openExamplePage>>;
  let page: Awaited<ReturnType<typeof openExamplePage>>["page"];
  let browser: Browser;
  beforeAll(async () => void ({ page, browser } = opened = await openExamplePage((chromium as { path: string }).path)));
  afterAll(async () => await opened?.close());

  it("a server that cannot be reached: the page says so, naming the address", async () => {
    const apiUrl = `http://127.0.0.1:${await closedPort()}`;
    const tab = await browser.newPage();
    await tab.goto(`${page.url}/?apiUrl=${encodeURIComponent(apiUrl)}&assistant=agent`, { waitUntil: "load" });
    await tab.waitForFunction(() => document.body.dataset.state === "error", { timeout: 240_000 });
    const error = await tab.$eval("#error", (line) => ({
      hidden: (line as HTMLElement).hidden,
      text: line.textContent ?? "",
    }));
    expect(error.hidden).toBe(false);
    expect(error.text).toContain(`Cannot reach the Agent Server at ${apiUrl}`);
  });

  it("opened as a file: the page says it must be served over HTTP", async () => {
    const tab = await browser.newPage();
    await tab.goto(pathToFileURL(join(page.dir, "index.html")).href, { waitUntil: "load" });
    await tab.waitForFunction(() => document.body.dataset.state === "error", { timeout: 240_000 });
    const error = await tab.$eval("#error", (line) => ({
      hidden: (line as HTMLElement).hidden,
      text: line.textContent ?? "",
    }));
    expect(error.hidden).toBe(false);
    expect(error.text).toMatch(/served over HTTP/);
  });
});
