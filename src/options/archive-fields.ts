/** The options of the tool-output archive (the wrapper's and the in-graph runtime's `archive`) and its reader tool. */
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { z } from "zod";
import { integer, listOf, satisfying, text, withMethods, type Rule } from "./rules.js";

/** A LangGraph BaseStore the archive writes to. */
export const archiveStore = satisfying<BaseStore>(
  (value) =>
    typeof (value as { get?: unknown } | null)?.get === "function" &&
    typeof (value as { put?: unknown } | null)?.put === "function",
  "a LangGraph BaseStore (InMemoryStore, PostgresStore, SqliteStore)",
);

export const namespace = listOf(
  text("a non-empty array of non-empty strings"),
  "a non-empty array of non-empty strings",
  {
    min: 1,
  },
);

/** `archive`: what moves, and where (in the graph, the store defaults to the graph's). */
export const ARCHIVE_OPTIONS = z.strictObject(
  {
    /** The store the outputs go to. @default in the graph, the graph's store */
    store: archiveStore.optional(),
    /** Tool results above this many tokens are archived (500 tokens is about 2,000 characters of prose). @default 500 */
    thresholdTokens: integer(1).optional(),
    /** Characters of the output's start kept in the pointer. @default 2000 */
    headChars: integer(0).optional(),
    /** Characters of the output's end kept in the pointer. @default 1000 */
    tailChars: integer(0).optional(),
    /** Newest tool results never archived. @default 1 */
    keep: integer(0).optional(),
    /** @default ["archived-outputs"] (PostgresStore rejects "_", "%" and "\\" in namespace labels) */
    namespace: namespace.optional(),
  },
  { error: "an object { store, thresholdTokens, headChars, tailChars, keep, namespace }" },
);

/** `createArchiveReaderTool`'s options. */
export const ARCHIVE_READER_FIELDS = {
  store: withMethods(["get"], "a LangGraph BaseStore"),
  namespace,
  pageChars: integer(100),
} as const satisfies Record<string, Rule>;
