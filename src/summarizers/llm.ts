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
 * - The request and its answer are made by llm/summarize.ts, loaded on the first summary.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { argument, parseOptions } from "../options/check.js";
import { fn, integer, text, withMethods } from "../options/rules.js";
import { TokenCounter } from "../tokens/token-counter.js";
import type { LlmSettings } from "./llm/settings.js";
import { DEFAULT_SUMMARIZER_MAX_TOKENS, type SummarizeInput, type Summarizer } from "./types.js";

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
  private readonly settings: LlmSettings;

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
    this.settings = {
      summaryPrompt,
      ...(trimTokensToSummarize === undefined
        ? {}
        : { trim: { max: trimTokensToSummarize, counter: counter ?? new TokenCounter() } }),
    };
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

  async summarize(input: SummarizeInput): Promise<string> {
    const model = await this.resolveModel();
    input.signal?.throwIfAborted();
    const { summarizeWithModel } = await import("./llm/summarize.js");
    return summarizeWithModel(model, this.settings, input);
  }
}
