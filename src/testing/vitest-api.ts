/**
 * vitest's test API for the behaviour suite, loaded when vitest is installed. The testing entry imports without it
 * (ScriptedChatModel needs no test runner); `compactionSpec` then fails with MISSING_DEPENDENCY naming vitest.
 */
import type * as Vitest from "vitest";
import { CompactionError } from "../errors.js";
import { importOptional } from "../optional-dependency.js";

export type TestApi = Pick<typeof Vitest, "describe" | "it" | "expect" | "beforeEach" | "afterEach">;

let missing: CompactionError | undefined;
const loaded: TestApi | undefined = await importOptional(
  "vitest",
  "compactionSpec (the behaviour suite)",
  () => import("vitest"),
).catch((error: unknown) => {
  if (!CompactionError.isInstance(error) || error.code !== "MISSING_DEPENDENCY") throw error;
  missing = error;
  return undefined;
});

/** @throws CompactionError MISSING_DEPENDENCY when vitest is not installed. */
export function vitestApi(): TestApi {
  if (!loaded) throw missing!;
  return loaded;
}
