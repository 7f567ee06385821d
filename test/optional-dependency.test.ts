import { describe, expect, it } from "vitest";
import { CompactionError } from "../src/errors.js";
import { importOptional, requireOptional } from "../src/optional-dependency.js";

// A package name that is not installed, imported through a variable so the type checker does not resolve it.
const ABSENT = "langgraph-compaction-absent-package";

describe("optional dependencies", () => {
  it("a missing package is a MISSING_DEPENDENCY error naming it and the install command", async () => {
    const error = await importOptional(ABSENT, "the feature", () => import(ABSENT)).catch((caught: unknown) => caught);
    expect(CompactionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "MISSING_DEPENDENCY", value: ABSENT });
    expect((error as Error).message).toBe(`the feature needs the optional package ${ABSENT}, which is not installed: npm install ${ABSENT}`);
    expect((error as Error).cause).toMatchObject({ code: "ERR_MODULE_NOT_FOUND" });
  });

  it("an error that is not the package's absence passes unchanged", async () => {
    const inner = Object.assign(new Error("Cannot find package 'openai' imported from somewhere"), { code: "ERR_MODULE_NOT_FOUND" });
    await expect(importOptional("@langchain/openai", "x", () => Promise.reject(inner))).rejects.toBe(inner);
  });

  it("installed packages load, as ES modules and as CommonJS", async () => {
    const { ChatOpenAI } = await importOptional("@langchain/openai", "x", () => import("@langchain/openai"));
    expect(typeof ChatOpenAI).toBe("function");
    const Database = requireOptional<new (path: string) => { close(): void }>("better-sqlite3", "x");
    new Database(":memory:").close();
  });
});
