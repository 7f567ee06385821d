/**
 * A chat model that answers from a script instead of a network call: a real `BaseChatModel` (invoke, streaming
 * token by token, tool calls, `bindTools`, usage metadata when asked for), for offline tests of graphs that use this library —
 * `createAgent`, `createReactAgent`, `createSupervisor` or your own. Every call's input is recorded in `calls`.
 *
 *   const model = new ScriptedChatModel({ reply: (messages) => ({ content: `Noted ${messages.length} messages.` }) });
 */
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BaseChatModelParams,
  type BindToolsInput,
} from "@langchain/core/language_models/chat_models";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { AIMessage, AIMessageChunk, type BaseMessage, type UsageMetadata } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";

export interface ScriptedToolCall {
  name: string;
  args: Record<string, unknown>;
  id?: string;
}

export interface ScriptedReply {
  content?: string;
  toolCalls?: ScriptedToolCall[];
  /** Id of the reply message (a provider's run id otherwise). */
  id?: string;
  /** Metadata of the reply message, e.g. `{ timestamp }` for a replayed conversation. */
  additionalKwargs?: Record<string, unknown>;
}

/** Decides the reply from the messages the model receives and the names of the tools bound to it. */
export type ReplyPolicy = (messages: BaseMessage[], context: { tools: string[]; call: number }) => ScriptedReply;

export interface ScriptedChatModelFields extends BaseChatModelParams {
  reply: ReplyPolicy;
  /** Name reported as the model, for usage metadata and tracing. @default "scripted" */
  modelName?: string;
  /** Delay before each streamed token, in ms. @default 0 */
  tokenDelayMs?: number;
  /** Delay before each reply (a timer, as a provider's round trip: the event loop turns meanwhile), in ms. @default 0 */
  latencyMs?: number;
  /**
   * What the "provider" reports as each reply's `usage_metadata`, from the messages it received and its reply: a
   * provider's own count, which the library calibrates its count with (docs/token-counting.md). @default none reported
   */
  usage?: (messages: BaseMessage[], content: string) => UsageMetadata;
  /**
   * The input window its profile states (langchain's `model.profile.maxInputTokens`), as a provider's model does: a
   * trigger's `fraction` and the hard limit (90% of it) are shares of it. @default none stated
   */
  maxInputTokens?: number;
}

/** Tool call ids are unique across processes, as a provider's are (several processes may share one thread). */
let callIds = 0;
const callIdPrefix = `call_${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}_`;

export class ScriptedChatModel extends BaseChatModel<BaseChatModelCallOptions, AIMessageChunk> {
  readonly reply: ReplyPolicy;
  readonly model: string;
  readonly tokenDelayMs: number;
  readonly latencyMs: number;
  readonly reportUsage: ScriptedChatModelFields["usage"];
  private readonly maxInputTokens: number | undefined;
  /** The messages of every call, in order (shared with models returned by bindTools). */
  readonly calls: BaseMessage[][];
  private readonly boundTools: string[];

  constructor(fields: ScriptedChatModelFields, shared?: { calls: BaseMessage[][]; tools: string[] }) {
    super(fields);
    this.reply = fields.reply;
    this.model = fields.modelName ?? "scripted";
    this.tokenDelayMs = fields.tokenDelayMs ?? 0;
    this.latencyMs = fields.latencyMs ?? 0;
    this.reportUsage = fields.usage;
    this.maxInputTokens = fields.maxInputTokens;
    this.calls = shared?.calls ?? [];
    this.boundTools = shared?.tools ?? [];
  }

  _llmType(): string {
    return "scripted";
  }

  override get profile() {
    return this.maxInputTokens === undefined ? {} : { maxInputTokens: this.maxInputTokens };
  }

  override bindTools(
    tools: BindToolsInput[],
  ): Runnable<
    import("@langchain/core/language_models/base").BaseLanguageModelInput,
    AIMessageChunk,
    BaseChatModelCallOptions
  > {
    const names = tools.map((tool) => convertToOpenAITool(tool).function.name);
    return new ScriptedChatModel(
      {
        reply: this.reply,
        modelName: this.model,
        tokenDelayMs: this.tokenDelayMs,
        latencyMs: this.latencyMs,
        usage: this.reportUsage,
      },
      { calls: this.calls, tools: names },
    ) as unknown as Runnable<
      import("@langchain/core/language_models/base").BaseLanguageModelInput,
      AIMessageChunk,
      BaseChatModelCallOptions
    >;
  }

  private decide(messages: BaseMessage[]): {
    content: string;
    toolCalls: Required<ScriptedToolCall>[];
    fields: { id?: string; additional_kwargs?: Record<string, unknown> };
  } {
    this.calls.push([...messages]);
    const reply = this.reply(messages, { tools: this.boundTools, call: this.calls.length });
    return {
      content: reply.content ?? "",
      toolCalls: (reply.toolCalls ?? []).map((call) => ({ ...call, id: call.id ?? `${callIdPrefix}${++callIds}` })),
      fields: {
        ...(reply.id ? { id: reply.id } : {}),
        ...(reply.additionalKwargs ? { additional_kwargs: reply.additionalKwargs } : {}),
      },
    };
  }

  private usage(messages: BaseMessage[], content: string): { usage_metadata?: UsageMetadata } {
    return this.reportUsage ? { usage_metadata: this.reportUsage(messages, content) } : {};
  }

  private async latency(): Promise<void> {
    if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    await this.latency();
    const { content, toolCalls, fields } = this.decide(messages);
    const message = new AIMessage({
      ...fields,
      content,
      tool_calls: toolCalls.map((call) => ({ ...call, type: "tool_call" as const })),
      ...this.usage(messages, content),
      response_metadata: { model_name: this.model },
    });
    return { generations: [{ text: content, message }] };
  }

  async *_streamResponseChunks(
    messages: BaseMessage[],
    _options: this["ParsedCallOptions"],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    await this.latency();
    const { content, toolCalls, fields } = this.decide(messages);
    const tokens = content.match(/\s*\S+/g) ?? [];
    for (const token of tokens) {
      if (this.tokenDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.tokenDelayMs));
      const chunk = new ChatGenerationChunk({ text: token, message: new AIMessageChunk({ content: token }) });
      yield chunk;
      await runManager?.handleLLMNewToken(token, undefined, undefined, undefined, undefined, { chunk });
    }
    yield new ChatGenerationChunk({
      text: "",
      message: new AIMessageChunk({
        ...fields,
        content: "",
        tool_call_chunks: toolCalls.map((call, index) => ({
          type: "tool_call_chunk" as const,
          id: call.id,
          name: call.name,
          args: JSON.stringify(call.args),
          index,
        })),
        ...this.usage(messages, content),
        response_metadata: { model_name: this.model },
      }),
    });
  }
}
