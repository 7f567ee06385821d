/**
 * The docs as a newcomer meets them: a README that fits on a few screens and starts with the user (install, a
 * complete example with the defaults, a link to every docs page within its first 60 lines), and no page that links
 * to a file or an anchor-less page that does not exist. (Their TypeScript examples compile in check:package.)
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/child-entry.js";
import { brokenShippedLinks } from "../../scripts/check-package/links.js";
import { missingForPublish } from "../../scripts/check-package/publish-ready.js";

const readme = readFileSync(join(ROOT, "README.md"), "utf8");
const pages = readdirSync(join(ROOT, "docs")).filter((name) => name.endsWith(".md"));

describe("the README", () => {
  it("is at most 20 KB, and its first 60 lines hold install, a complete example with the defaults, and every docs page", () => {
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(20 * 1024);
    const first = readme.split("\n").slice(0, 60).join("\n");
    expect(first).toMatch(/```bash\nnpm install langgraph-compaction /);
    const example = /```ts\n([\s\S]*?)```/.exec(first)?.[1] ?? "";
    // Complete: it builds a graph with a checkpointer, wraps it, runs a turn and closes; the defaults: only the trigger.
    for (const part of ["checkpointer", "new CompactingSupervisor(", "trigger:", ".invoke(", "thread_id", "close()"])
      expect(example).toContain(part);
    expect(example).not.toMatch(/compactionRatio|keepTokens|compactionTarget|background:/);
    for (const page of pages) expect(first, page).toContain(`(docs/${page})`);
    expect(first).toContain("(CHANGELOG.md)");
    expect(first).toContain("(CONTRIBUTING.md)");
  });

  it("points at nothing outside the repository a fresh clone lacks", () => {
    expect(readme).not.toContain("../shared");
  });
});

describe("links between the pages", () => {
  it("every relative link of the README, CONTRIBUTING and docs/ names a file that exists", () => {
    for (const file of ["README.md", "CONTRIBUTING.md", "CHANGELOG.md", ...pages.map((page) => `docs/${page}`)]) {
      const text = readFileSync(join(ROOT, file), "utf8");
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        expect(existsSync(resolve(dirname(join(ROOT, file)), target!)), `${file} links to ${target}`).toBe(true);
      }
    }
  });
});

describe("the published package's pages", () => {
  it("link only to files the tarball ships (npm pack's own file list)", () => {
    const [packed] = JSON.parse(
      execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
        cwd: ROOT,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }),
    ) as Array<{ files: Array<{ path: string }> }>;
    const shipped = packed!.files.map((file) => file.path);
    expect(shipped).toEqual(expect.arrayContaining(["README.md", "CONTRIBUTING.md", ".env.example"]));
    expect(brokenShippedLinks(shipped, (path) => readFileSync(join(ROOT, path), "utf8"))).toEqual([]);
  });

  it("the link check sees a link to a file the tarball leaves out", () => {
    const pages: Record<string, string> = {
      "README.md": "[a](CONTRIBUTING.md) [b](docs/x.md#part) [c](https://example.com/y.md)",
      "docs/x.md": "[up](../.env.example)",
    };
    expect(brokenShippedLinks(["README.md", "docs/x.md"], (path) => pages[path]!)).toEqual([
      "README.md → CONTRIBUTING.md",
      "docs/x.md → ../.env.example",
    ]);
  });
});

describe("publishing", () => {
  it("stops without a repository in package.json, naming the field (prepublishOnly)", () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(manifest.scripts.prepublishOnly).toContain("publish-ready");
    expect(missingForPublish({})).toEqual([expect.stringContaining('"repository"')]);
    expect(missingForPublish({ repository: { type: "git", url: "git+https://example.com/x.git" } })).toEqual([]);
  });
});
