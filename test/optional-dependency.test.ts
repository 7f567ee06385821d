import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { CompactionError } from "../src/errors.js";
import { importOptional, isUnbuiltNativeModule, requireOptional, unbuiltSqlite } from "../src/optional-dependency.js";

// A package name that is not installed, imported through a variable so the type checker does not resolve it.
const ABSENT = "langgraph-compaction-absent-package";

describe("optional dependencies", () => {
  it("a missing package is a MISSING_DEPENDENCY error naming it and the install command", async () => {
    const error = await importOptional(ABSENT, "the feature", () => import(ABSENT)).catch((caught: unknown) => caught);
    expect(CompactionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "MISSING_DEPENDENCY", value: ABSENT });
    expect((error as Error).message).toBe(
      `the feature needs the optional package ${ABSENT}, which is not installed: npm install ${ABSENT}`,
    );
    expect((error as Error).cause).toMatchObject({ code: "ERR_MODULE_NOT_FOUND" });
  });

  it("an error that is not the package's absence passes unchanged", async () => {
    const inner = Object.assign(new Error("Cannot find package 'openai' imported from somewhere"), {
      code: "ERR_MODULE_NOT_FOUND",
    });
    await expect(importOptional("@langchain/openai", "x", () => Promise.reject(inner))).rejects.toBe(inner);
  });

  it("installed packages load, as ES modules and as CommonJS", async () => {
    const { ChatOpenAI } = await importOptional("@langchain/openai", "x", () => import("@langchain/openai"));
    expect(typeof ChatOpenAI).toBe("function");
    const Database = requireOptional<new (path: string) => { close(): void }>("better-sqlite3", "x");
    new Database(":memory:").close();
  });

  it("better-sqlite3 installed without its native build (its install script skipped): recognised, and the error says what to do", () => {
    // The package as an install that skips its script leaves it (--ignore-scripts): its JavaScript, no build/ folder.
    const dir = mkdtempSync(join(tmpdir(), "compaction-unbuilt-"));
    try {
      const here = createRequire(import.meta.url);
      for (const name of ["better-sqlite3", "bindings", "file-uri-to-path"]) {
        const root = dirname(here.resolve(`${name}/package.json`));
        cpSync(root, join(dir, "node_modules", name), {
          recursive: true,
          filter: (source) =>
            !source.startsWith(join(root, "build")) &&
            !source.startsWith(join(root, "deps")) &&
            !source.startsWith(join(root, "src")),
        });
      }
      const Database = createRequire(join(dir, "index.js"))("better-sqlite3") as new (path: string) => {
        close(): void;
      };
      let caught: unknown;
      try {
        new Database(":memory:").close();
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(Error);
      expect(isUnbuiltNativeModule(caught)).toBe(true);
      const error = unbuiltSqlite(caught);
      expect(error).toMatchObject({ code: "MISSING_DEPENDENCY", value: "better-sqlite3" });
      expect(error.message).toContain('"allowScripts": { "better-sqlite3": true }');
      expect(error.message).toContain("npm rebuild better-sqlite3");
      // Another failure is not taken for it.
      expect(isUnbuiltNativeModule(new Error("SQLITE_NOTADB: file is not a database"))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
