/**
 * langgraph-compaction/testing for require(): the scripted chat model as in the ES module build. compactionSpec
 * registers vitest tests, and vitest loads test files as ES modules and cannot itself be required, so here it
 * explains that instead of failing inside vitest.
 */
// The SQLite and Postgres backends, registered for every saver of theirs (store/all-backends.ts).
import "../store/all-backends.js";
import { CompactionError } from "../errors.js";
import type { SaverInitializer } from "./compaction-spec.js";

export {
  ScriptedChatModel,
  type ScriptedChatModelFields,
  type ScriptedReply,
  type ScriptedToolCall,
  type ReplyPolicy,
} from "./scripted-chat-model.js";
export type { SaverInitializer };

/** @throws CompactionError MISSING_DEPENDENCY: vitest (which the suite runs in) cannot be loaded with require(). */
export function compactionSpec(initializer: SaverInitializer): void {
  throw new CompactionError({
    code: "MISSING_DEPENDENCY",
    value: initializer?.name,
    message:
      "compactionSpec runs under vitest, which cannot be loaded with require(): import langgraph-compaction/testing from an ES module (vitest test files are)",
  });
}
