/** Summarizers: the public names of summarizers/ (the OpenAI one is langgraph-compaction/openai). */
export { ExtractiveSummarizer, type ExtractiveSummarizerOptions } from "./extractive.js";
export { LlmSummarizer, type LlmSummarizerOptions } from "./llm.js";
export { createDefaultSummarizer, type SummarizerChoice } from "./default.js";
export type { Summarizer, SummarizeInput } from "./types.js";
