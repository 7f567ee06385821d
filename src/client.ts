/**
 * `langgraph-compaction/client`: for a browser (or any client of the Agent Server) — the person's view of a thread,
 * the whole conversation across compactions, read through `@langchain/langgraph-sdk`. No Node built-ins, no SQLite,
 * nothing of LangChain (docs/deploying.md, "Showing the whole conversation in your UI").
 */
export { ConversationError, readConversation } from "./client/conversation.js";
export type {
  ConversationClient,
  ConversationMessage,
  ConversationPage,
  PlainMessage,
  ReadConversationOptions,
} from "./client/conversation.js";
export type { CompactionStreamEvent, InGraphCompactionEvent } from "./runtimes/in-graph/compaction-event.js";
