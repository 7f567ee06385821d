/**
 * langgraph-compaction/testing: a scripted chat model for offline tests, and the behaviour suite to run on your own
 * checkpoint saver (compactionSpec, which needs vitest; without it, MISSING_DEPENDENCY when called).
 */
// The SQLite and Postgres backends, registered for every saver of theirs (store/all-backends.ts).
import "../store/all-backends.js";
export {
  ScriptedChatModel,
  type ScriptedChatModelFields,
  type ScriptedReply,
  type ScriptedToolCall,
  type ReplyPolicy,
} from "./scripted-chat-model.js";
export { compactionSpec, type SaverInitializer } from "./compaction-spec.js";
