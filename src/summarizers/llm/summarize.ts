/**
 * An LlmSummarizer's summary (summarizers/llm.ts describes it): loaded on the first summary, so an application that
 * summarizes offline never loads it.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import type { Runnable } from "@langchain/core/runnables";
import { CompactionError } from "../../errors.js";
import { contentText } from "../../messages/content.js";
import type { ToolDefinitionLike } from "../../tokens/tool-definitions.js";
import { anchorSummary, lastUserRequest } from "../anchored.js";
import { liveRequest } from "../live-request.js";
import { CHARS_PER_TOKEN, validateSummaryText } from "../output.js";
import { newestWithin, summaryRequest } from "../prompt.js";
import type { SummarizeInput, SummarizerUsage } from "../types.js";
import type { LlmSettings } from "./settings.js";

/** The model is never asked for fewer tokens than this, whatever the verbatim last request takes. */
const FLOOR_MODEL_BUDGET = 48;

/** The summary of `input` by `model`, as an LlmSummarizer with `settings` writes it (llm.ts describes how). */
export async function summarizeWithModel(
  model: BaseChatModel,
  settings: LlmSettings,
  { previousSummary, earlierSegments, messages, tokenBudget, signal, onUsage, prompt }: SummarizeInput,
): Promise<string> {
  // The last request is appended verbatim after the model's sections (anchored.ts): the model gets the rest. Not to
  // a segment of the log: the newest user turn stays in the kept messages, word for word, and the segment is never
  // rewritten, so a request it carried would only grow stale in its room.
  const lastRequest =
    earlierSegments === undefined ? lastUserRequest(previousSummary, messages, tokenBudget) : undefined;
  const modelBudget = Math.max(
    FLOOR_MODEL_BUDGET,
    tokenBudget - (lastRequest ? Math.ceil(lastRequest.length / CHARS_PER_TOKEN) + 8 : 0),
  );
  // A segment of the log, with the agent's last prompt at hand and the library's wording: that prompt, then the
  // instruction (live-request.ts), unless it is longer than `trimTokensToSummarize`. A tool call for an answer, or
  // a prompt too long: the delimited request below, without tools.
  const trim = settings.trim;
  const live =
    prompt && previousSummary === undefined && settings.summaryPrompt === undefined
      ? liveRequest(prompt, messages, modelBudget)
      : undefined;
  const tools = prompt?.tools ?? [];
  if (
    live &&
    (!trim || trim.counter.countMessages(live, { tools: tools as readonly ToolDefinitionLike[] }) <= trim.max)
  ) {
    const bound = tools.length > 0 && model.bindTools ? model.bindTools(tools as never) : model;
    const response = await call(bound, live, signal, onUsage);
    if (!hasToolCalls(response))
      return anchorSummary(validateSummaryText(contentText(response), tokenBudget), lastRequest);
  }
  const read = trim ? newestWithin(messages, trim.max, (some) => trim.counter.countMessages(some)) : messages;
  const response = await call(
    model,
    summaryRequest(settings.summaryPrompt, previousSummary, read, modelBudget, earlierSegments),
    signal,
    onUsage,
  );
  if (hasToolCalls(response) && contentText(response).trim() === "") {
    throw new CompactionError({
      code: "SUMMARIZER_FAILED",
      message: "the summarizer answered with a tool call instead of text",
    });
  }
  return anchorSummary(validateSummaryText(contentText(response), tokenBudget), lastRequest);
}

/** One call of the model, out of the caller's stream, its usage told. */
async function call(
  model: Runnable<BaseMessage[], BaseMessage>,
  request: BaseMessage[],
  signal: AbortSignal | undefined,
  onUsage: SummarizeInput["onUsage"],
): Promise<BaseMessage> {
  let response: BaseMessage;
  try {
    response = await model.invoke(request, {
      callbacks: [],
      tags: ["nostream", "langgraph-compaction:summary"],
      // As langchain's summarization tags its call: tracing tools and UIs that know langchain's summaries know these.
      metadata: { lc_source: "summarization" },
      runName: "compaction-summary",
      signal,
    });
  } catch (error) {
    if (CompactionError.isInstance(error) || signal?.aborted) throw error;
    throw new CompactionError({
      code: "SUMMARIZER_FAILED",
      message: `the summary model failed: ${error instanceof Error ? error.message : String(error)}`,
      cause: error,
    });
  }
  const usage = usageOf(response);
  if (usage) onUsage?.(usage);
  return response;
}

function hasToolCalls(response: BaseMessage): boolean {
  const calls = (response as BaseMessage & { tool_calls?: unknown[] }).tool_calls;
  return Array.isArray(calls) && calls.length > 0;
}

/** The provider's figures on a reply (`usage_metadata`), when it carries them. */
function usageOf(response: BaseMessage): SummarizerUsage | undefined {
  const usage = (response as AIMessage).usage_metadata;
  if (typeof usage?.input_tokens !== "number" || typeof usage.output_tokens !== "number") return undefined;
  const cached = usage.input_token_details?.cache_read;
  return {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    ...(typeof cached === "number" ? { cachedInputTokens: cached } : {}),
  };
}
