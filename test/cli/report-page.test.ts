/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * `report --html` on the demo's thread, rendered in a real headless browser (Debian's chromium through
 * puppeteer-core): the saw-tooth is drawn with one point per turn and per compaction, every compaction has a visible
 * marker linked to its section, the transcript's search filters, and the page fetches nothing. A screenshot lands in
 * .tmp/ (docs/images/report.png with UPDATE_SCREENSHOTS=1, which is how the docs' picture is made).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import puppeteer, { type Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findChromium } from "../support/chromium.js";
import { runScript, ROOT, runTs } from "../support/run-script.js";
import type { ThreadReport } from "../../src/cli/report-data.js";

const THREAD = "demo-report";
const LIMIT = "1500";
let dir: string;
let db: string;
let browser: Browser;
const chromium = findChromium();
if ("skip" in chromium) console.warn(chromium.skip);

beforeAll(async () => {
  if (!("path" in chromium)) return;
  dir = mkdtempSync(join(tmpdir(), "compaction-report-"));
  db = join(dir, "demo.sqlite");
  const executablePath = chromium.path;
  const demo = await runTs("scripts/demo.ts", [], {
    DATABASE_PATH: db,
    DEMO_THREAD_ID: THREAD,
    DEMO_TURNS: "16",
    DEMO_TOKEN_LIMIT: LIMIT,
    DEMO_TOKEN_DELAY_MS: "0",
  });
  expect(demo.code, demo.stderr).toBe(0);
  browser = await puppeteer.launch({
    executablePath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
}, 900_000);

afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf("skip" in chromium)("report --html in a headless browser", () => {
  it("draws the tokens over the turns with every compaction marked, and its search filters the transcript", async () => {
    const page = join(dir, "report.html");
    const written = await runScript(["report", THREAD, "--db", db, "--limit", LIMIT, "--html", page]);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stdout).toContain(`page written: ${page}`);
    const report = JSON.parse(
      (await runScript(["report", THREAD, "--db", db, "--limit", LIMIT, "--json"])).stdout,
    ) as ThreadReport;
    expect(report.compactions.length).toBeGreaterThan(0);

    const tab = await browser.newPage();
    const requests: string[] = [];
    tab.on("request", (request) => void requests.push(request.url()));
    await tab.setViewport({ width: 1100, height: 900 });
    await tab.goto(pathToFileURL(page).href, { waitUntil: "load" });

    const drawn = await tab.evaluate(() => {
      const svg = document.getElementById("tokens-chart")!.getBoundingClientRect();
      const line = document.querySelector<SVGPolylineElement>(".tokens-line")!;
      const markers = [...document.querySelectorAll<SVGCircleElement>(".compaction-marker")].map((marker) => {
        const box = marker.getBoundingClientRect();
        return {
          width: box.width,
          inside: box.left >= svg.left && box.right <= svg.right && box.top >= svg.top && box.bottom <= svg.bottom,
          fill: getComputedStyle(marker).fill,
        };
      });
      return {
        svgWidth: svg.width,
        svgHeight: svg.height,
        points: line.points.numberOfItems,
        length: line.getTotalLength(),
        markers,
        sections: document.querySelectorAll("details.compaction").length,
      };
    });
    expect(drawn.svgWidth).toBeGreaterThan(500);
    expect(drawn.svgHeight).toBeGreaterThan(200);
    expect(drawn.points).toBe(report.points.length);
    expect(drawn.length).toBeGreaterThan(100);
    expect(drawn.markers).toHaveLength(report.compactions.length);
    for (const marker of drawn.markers) {
      expect(marker.width).toBeGreaterThan(5);
      expect(marker.inside).toBe(true);
      expect(marker.fill).not.toBe("none");
    }
    expect(drawn.sections).toBe(report.compactions.length);
    // The saw-tooth: each compaction's marker sits lower than the point before it.
    for (const compaction of report.compactions)
      expect(report.points[compaction.point]!.tokens).toBeLessThan(report.points[compaction.point - 1]!.tokens);

    // A marker opens its compaction's section.
    await tab.click(".compaction-marker");
    expect(await tab.evaluate(() => location.hash)).toBe("#compaction-1");

    // The transcript holds every compacted message and the head; search narrows it to the rows with the words.
    const total = await tab.$$eval(".transcript-row", (rows) => rows.length);
    expect(total).toBe(report.transcript.length);
    expect(report.transcript.filter((line) => line.where === "compacted").length).toBeGreaterThan(0);
    await tab.type("#search", "rounding");
    const visible = await tab.$$eval(".transcript-row", (rows) =>
      rows.filter((row) => !(row as HTMLElement).hidden).map((row) => row.textContent!.toLowerCase()),
    );
    expect(visible.length).toBeGreaterThan(0);
    expect(visible.length).toBeLessThan(total);
    for (const text of visible) expect(text).toContain("rounding");

    // Self-contained: nothing but the page itself was requested.
    expect(requests.filter((url) => !url.startsWith("file:") && !url.startsWith("data:"))).toEqual([]);

    const target = process.env.UPDATE_SCREENSHOTS === "1" ? join(ROOT, "docs", "images") : join(ROOT, ".tmp");
    mkdirSync(target, { recursive: true });
    await tab.evaluate(() => {
      (document.getElementById("search") as HTMLInputElement).value = "";
      document.getElementById("search")!.dispatchEvent(new Event("input"));
      document.querySelector<HTMLDetailsElement>("details.compaction")!.open = true;
      window.scrollTo(0, 0);
    });
    await tab.screenshot({ path: join(target, "report.png") });
    await tab.close();
  });
});
