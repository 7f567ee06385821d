/** langgraph-compaction/openai: what needs @langchain/openai (an optional peer dependency). */
export { createOpenAISummarizer, type OpenAISummarizerOptions } from "./summarizers/openai.js";
