/** The options of the tool-output archive and its reader tool, one rule each. */
import { SHARED_FIELDS } from "./fields.js";
import { integer, listOf, text, withMethods, type Rule } from "./rules.js";

/** A LangGraph BaseStore the archive writes to. */
export const archiveStore = withMethods(
  ["get", "put"],
  "a LangGraph BaseStore (InMemoryStore, PostgresStore, SqliteStore)",
);

export const namespace = listOf(
  text("a non-empty array of non-empty strings"),
  "a non-empty array of non-empty strings",
  {
    min: 1,
  },
);

/** `ArchiveOptions` (the wrapper's and the in-graph runtime's `archive`). */
export const ARCHIVE_FIELDS = {
  store: archiveStore,
  thresholdTokens: integer(1),
  headChars: integer(0),
  tailChars: integer(0),
  keep: integer(0),
  namespace,
  pinned: SHARED_FIELDS.pinned,
  counter: withMethods(["countMessages"], "a TokenCounter"),
} as const satisfies Record<string, Rule>;

/** `createArchiveReaderTool`'s options. */
export const ARCHIVE_READER_FIELDS = {
  store: withMethods(["get"], "a LangGraph BaseStore"),
  namespace,
  pageChars: integer(100),
} as const satisfies Record<string, Rule>;
