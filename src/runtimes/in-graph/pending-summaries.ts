/** A summary the in-graph runtime computed off the model call, kept for the thread's next call (engine/thread-compaction.ts). */
import type { BaseMessage } from "@langchain/core/messages";
import type { CompactedMessages, UnwrittenSummary } from "../../engine/summarize-plan.js";

export interface Pending {
  snapshot: readonly BaseMessage[];
  /** What the snapshot counted when the summary started (calibrated). */
  tokens: number;
  result: Promise<CompactedMessages | UnwrittenSummary | { error: unknown }>;
}
