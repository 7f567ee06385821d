/**
 * LlmSummarizer: a structured running summary written by any LangChain chat model, updated section by section
 * rather than rewritten, with the user's last request kept word for word (anchored.ts).
 *
 * - The request: a system prompt and one data message, the conversation inside delimiters (prompt.ts), with no tools
 *   bound. For a segment of the summary log: the earlier segments, read-only, before the messages, and the
 *   segment's own instruction; or, when the runtime gives the agent's last prompt (the middleware), that prompt with
 *   its tools, then one instruction (live-request.ts); a tool call for an answer asks once more with the delimited
 *   request.
 * - Its tokens never reach the caller's stream: the call is tagged `nostream` (LangGraph's stream handlers skip
 *   such runs) and made with no inherited callbacks.
 * - Its output is validated (non-empty text, within a bound, not an error message); a bad answer is an error.
 * - One call per summary (two when the live request got a tool call): transient failures are retried by the chat
 *   model itself (its `maxRetries`, with its own backoff), never again here. A call that fails, or an answer that is
 *   not a summary, is SUMMARIZER_FAILED and the compaction writes nothing (or the `fallbackSummarizer` writes it).
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import { CompactionError } from "../errors.js";
import { CHARS_PER_TOKEN, validateSummaryText } from "./output.js";
import { newestWithin, summaryRequest } from "./prompt.js";
import { liveRequest } from "./live-request.js";
import type { Runnable } from "@langchain/core/runnables";
import { argument, parseOptions } from "../options/check.js";
import { fn, integer, text, withMethods } from "../options/rules.js";
import { TokenCounter } from "../tokens/token-counter.js";
import type { ToolDefinitionLike } from "../tokens/tool-definitions.js";
import { anchorSummary, lastUserRequest } from "./anchored.js";
import { contentText } from "../messages/content.js";
import { DEFAULT_SUMMARIZER_MAX_TOKENS, type SummarizeInput, type Summarizer, type SummarizerUsage } from "./types.js";

export interface LlmSummarizerOptions {
  /** The chat model. Required unless `loadModel` is given. */
  model?: BaseChatModel;
  /**
   * Builds the chat model on the first summary instead (e.g. to import an optional provider package only when a
   * summary is written); called once. With it, `modelName` names the model in the provenance.
   */
  loadModel?: () => Promise<BaseChatModel>;
  /** The model's name recorded in the provenance when `loadModel` is used. */
  modelName?: string;
  /** The longest summary the model can write, in tokens (its output limit). @default 4000 */
  maxTokens?: number;
  /** The instruction given to the model instead of the library's (langchain's `summaryPrompt`: wording.ts). */
  summaryPrompt?: string;
  /** The model reads only the newest messages of a span within this many tokens (wording.ts). @default no trim */
  trimTokensToSummarize?: number;
  /** Counts messages for `trimTokensToSummarize`. @default the exact tokenizer (gpt-4o) */
  counter?: TokenCounter;
}

export const DEFAULT_SUMMARY_MODEL = "gpt-4o-mini";
/** The model is never asked for fewer tokens than this, whatever the verbatim last request takes. */
const FLOOR_MODEL_BUDGET = 48;

function modelName(model: BaseChatModel): string | undefined {
  const candidate = model as BaseChatModel & { model?: unknown; modelName?: unknown };
  const name = candidate.model ?? candidate.modelName;
  return typeof name === "string" ? name : undefined;
}

export class LlmSummarizer implements Summarizer {
  readonly name = "llm";
  readonly model?: string;
  readonly maxTokens: number;
  private readonly chatModel?: BaseChatModel;
  private readonly loadModel?: () => Promise<BaseChatModel>;
  private loading?: Promise<BaseChatModel>;
  private readonly summaryPrompt?: string;
  private readonly trim?: { max: number; counter: TokenCounter };

  /** @throws CompactionError INVALID_ARGUMENT when no model is given (and none can be built), or a bad option. */
  constructor({
    model,
    loadModel,
    modelName: name,
    maxTokens = DEFAULT_SUMMARIZER_MAX_TOKENS,
    summaryPrompt,
    trimTokensToSummarize,
    counter,
  }: LlmSummarizerOptions = {}) {
    if (loadModel === undefined || model !== undefined) {
      const says =
        model === undefined
          ? "a BaseChatModel (use createDefaultSummarizer() to build ChatOpenAI from OPENAI_API_KEY)"
          : "a LangChain chat model with invoke()";
      argument("model", model, withMethods(["invoke"], says));
    } else argument("loadModel", loadModel, fn("a function returning a chat model"));
    argument("maxTokens", maxTokens, integer(64));
    this.chatModel = model;
    this.loadModel = loadModel;
    this.model = model ? modelName(model) : name;
    this.maxTokens = maxTokens;
    parseOptions(
      "LlmSummarizer",
      { summaryPrompt: text(), trimTokensToSummarize: integer(1, { says: "a positive integer number of tokens" }) },
      { summaryPrompt, trimTokensToSummarize },
    );
    this.summaryPrompt = summaryPrompt;
    if (trimTokensToSummarize !== undefined)
      this.trim = { max: trimTokensToSummarize, counter: counter ?? new TokenCounter() };
  }

  /** The chat model, built by `loadModel` on first use (once; a failed build is tried again on the next summary). */
  private resolveModel(): Promise<BaseChatModel> {
    if (this.chatModel) return Promise.resolve(this.chatModel);
    this.loading ??= this.loadModel!().catch((error: unknown) => {
      this.loading = undefined;
      throw error;
    });
    return this.loading;
  }

  async summarize({
    previousSummary,
    earlierSegments,
    messages,
    tokenBudget,
    signal,
    onUsage,
    prompt,
  }: SummarizeInput): Promise<string> {
    // The last request is appended verbatim after the model's sections (anchored.ts): the model gets the rest. Not to
    // a segment of the log: the newest user turn stays in the kept messages, word for word, and the segment is never
    // rewritten, so a request it carried would only grow stale in its room.
    const lastRequest =
      earlierSegments === undefined ? lastUserRequest(previousSummary, messages, tokenBudget) : undefined;
    const modelBudget = Math.max(
      FLOOR_MODEL_BUDGET,
      tokenBudget - (lastRequest ? Math.ceil(lastRequest.length / CHARS_PER_TOKEN) + 8 : 0),
    );
    // A model that cannot be built (a provider package not installed) is not retried.
    const model = await this.resolveModel();
    signal?.throwIfAborted();
    // A segment of the log, with the agent's last prompt at hand and the library's wording: that prompt, then the
    // instruction (live-request.ts), unless it is longer than `trimTokensToSummarize`. A tool call for an answer, or
    // a prompt too long: the delimited request below, without tools.
    const trim = this.trim;
    const live =
      prompt && previousSummary === undefined && this.summaryPrompt === undefined
        ? liveRequest(prompt, messages, modelBudget)
        : undefined;
    const tools = prompt?.tools ?? [];
    if (
      live &&
      (!trim || trim.counter.countMessages(live, { tools: tools as readonly ToolDefinitionLike[] }) <= trim.max)
    ) {
      const bound = tools.length > 0 && model.bindTools ? model.bindTools(tools as never) : model;
      const response = await this.call(bound, live, signal, onUsage);
      if (!hasToolCalls(response))
        return anchorSummary(validateSummaryText(contentText(response), tokenBudget), lastRequest);
    }
    const read = trim ? newestWithin(messages, trim.max, (some) => trim.counter.countMessages(some)) : messages;
    const response = await this.call(
      model,
      summaryRequest(this.summaryPrompt, previousSummary, read, modelBudget, earlierSegments),
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
  private async call(
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
