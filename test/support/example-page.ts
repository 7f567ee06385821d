/**
 * The example conversation page (examples/conversation-ui), bundled as its README says (esbuild, the client entry
 * from the source tree) into a folder of its own and served on a local port.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { build } from "esbuild";
import puppeteer, { type Browser } from "puppeteer-core";
import { ROOT } from "./child-entry.js";

export async function servePage(): Promise<{ server: Server; url: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), "compaction-conversation-page-"));
  const example = join(ROOT, "examples/conversation-ui");
  copyFileSync(join(example, "index.html"), join(dir, "index.html"));
  await build({
    entryPoints: [join(example, "app.ts")],
    bundle: true,
    format: "esm",
    platform: "browser",
    outfile: join(dir, "app.js"),
    alias: { "langgraph-compaction/client": join(ROOT, "src/client.ts") },
    logLevel: "silent",
  });
  const types: Record<string, string> = { ".html": "text/html", ".js": "text/javascript" };
  const server = createServer((request, response) => {
    const file = join(dir, new URL(request.url ?? "/", "http://page").pathname.replace(/^\/$/, "/index.html"));
    try {
      const body = readFileSync(file);
      response.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" }).end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, dir };
}

/** The page served, and Debian's chromium (`executablePath`) headless beside it; `close` ends both. */
export async function openExamplePage(
  executablePath: string,
): Promise<{ page: Awaited<ReturnType<typeof servePage>>; browser: Browser; close(): Promise<void> }> {
  const page = await servePage();
  const browser = await puppeteer.launch({
    executablePath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  return {
    page,
    browser,
    close: async () => {
      await browser.close();
      page.server.close();
      rmSync(page.dir, { recursive: true, force: true });
    },
  };
}
