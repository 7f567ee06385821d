/**
 * The sliding-window contender of the benchmarks: LangChain's `trimMessages` (strategy "last", exact counts with
 * this library's counter) applied to every model call of a createAgent graph, leaving the stored history whole.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { createMiddleware, trimMessages } from "langchain";
import type { TokenCounter } from "../../src/tokens/token-counter.js";

export interface SlidingWindowOptions {
  budget: number;
  systemPrompt: string;
  counter: TokenCounter;
  /** Keep the window starting on a user message (agent threads); a chat may start on either speaker. */
  startOnHuman?: boolean;
}

export function slidingWindowMiddleware({ budget, systemPrompt, counter, startOnHuman = false }: SlidingWindowOptions) {
  const systemTokens = counter.countText(systemPrompt) + 4;
  return createMiddleware({
    name: "SlidingWindow",
    wrapModelCall: async (request, handler) => {
      const messages = await trimMessages(request.messages, {
        maxTokens: Math.max(1, budget - systemTokens),
        strategy: "last",
        tokenCounter: (messages: BaseMessage[]) => counter.countMessages(messages),
        ...(startOnHuman ? { startOn: "human" as const } : {}),
        allowPartial: false,
      });
      return handler({ ...request, messages });
    },
  });
}
