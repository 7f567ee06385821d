/**
 * The library's ExtractiveSummarizer behind LangChain's chat-model interface, so summarizationMiddleware can use the
 * very summarizer the CompactingSupervisor uses and the comparison isolates policy. The middleware sends its prompt
 * with the messages rendered by getBufferString ("Human: …", "AI: …", "Tool: …"); with `summaryPrompt: "{messages}"`
 * the prompt is exactly that rendering, parsed back into messages here.
 */
import { BaseChatModel, type BaseChatModelCallOptions } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { summaryBudget } from "../../../src/engine/plan.js";
import { ExtractiveSummarizer } from "../../../src/summarizers/extractive.js";
import type { TokenCounter } from "../../../src/tokens/token-counter.js";

const ROLE = /^(Human|AI|Tool|System|Function): /m;

/** getBufferString output back to messages (a line starting with a role prefix starts a new message). */
export function parseBuffer(text: string): BaseMessage[] {
  const parts = text.split(/^(?=(?:Human|AI|Tool|System|Function): )/m).filter((part) => part.trim() !== "");
  return parts.map((part, index) => {
    const match = ROLE.exec(part);
    const role = match?.[1] ?? "Human";
    const content = match ? part.slice(match[0].length).trimEnd() : part.trimEnd();
    if (role === "AI") return new AIMessage({ content });
    if (role === "Tool" || role === "Function") return new ToolMessage({ content, tool_call_id: `parsed_${index}` });
    if (role === "System") return new SystemMessage({ content });
    return new HumanMessage({ content });
  });
}

export class ExtractiveChatModel extends BaseChatModel<BaseChatModelCallOptions> {
  calls = 0;
  tokensRead = 0;
  /** Time spent summarizing, in ms. */
  ms = 0;
  private readonly summarizer: ExtractiveSummarizer;

  constructor(private readonly counter: TokenCounter) {
    super({});
    this.summarizer = new ExtractiveSummarizer({ counter });
  }

  _llmType(): string {
    return "extractive";
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const text = messages
      .map((message) => (typeof message.content === "string" ? message.content : message.text))
      .join("\n");
    const parsed = parseBuffer(text);
    const tokens = this.counter.countMessages(parsed);
    this.calls++;
    this.tokensRead += tokens;
    const started = performance.now();
    const summary = await this.summarizer.summarize({ messages: parsed, tokenBudget: summaryBudget(tokens) });
    this.ms += performance.now() - started;
    return { generations: [{ text: summary, message: new AIMessage(summary) }] };
  }
}
