/**
 * The contenders of the peers benchmark, each a real compiled graph (langchain's createAgent) over the same scripted
 * model and tools, at the same token budget:
 * - this library: CompactingSupervisor + ExtractiveSummarizer (compaction finishes inside the turn: background false);
 * - this library with the pipeline clear-tool-results → summarize (strategy option);
 * - summarizationMiddleware with the same ExtractiveSummarizer wrapped as a chat model (its own chars/4 counter);
 * - trimMessages as a sliding window (strategy "last") applied to every model call;
 * - no compaction (the reference).
 */
import { HumanMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { createAgent, summarizationMiddleware } from "langchain";
import { createPipeline } from "../../../src/strategies/pipeline.js";
import { createStrategy } from "../../../src/strategies/registry.js";
import { ExtractiveSummarizer } from "../../../src/summarizers/extractive.js";
import type { Summarizer } from "../../../src/summarizers/types.js";
import type { ThreadStrategy } from "../../../src/strategies/types.js";
import { CompactingSupervisor } from "../../../src/runtimes/wrapper/compacting-supervisor.js";
import type { TokenCounter } from "../../../src/tokens/token-counter.js";
import { slidingWindowMiddleware } from "../sliding-window.js";
import { ExtractiveChatModel } from "./extractive-chat-model.js";
import type { Player } from "./player.js";
import { modelWithHardLimit } from "../../../test/support/window.js";

export const SYSTEM_PROMPT =
  "You are a supervisor coordinating a researcher and a coder for the billing team. Hand off with the transfer tools.";

export interface RunningContender {
  invoke(text: string, threadId: string): Promise<void>;
  summarizer: { calls: number; tokensRead: number };
}

export interface Contender {
  name: string;
  build(player: Player, checkpointer: BaseCheckpointSaver, budget: number, counter: TokenCounter): RunningContender;
}

const turnInput = (text: string) => ({ messages: [new HumanMessage(text)] });
const threadConfig = (threadId: string) => ({ configurable: { thread_id: threadId }, recursionLimit: 200 });

/** Counts what the library's summarizer is asked to read. */
function countingSummarizer(counter: TokenCounter, stats: { calls: number; tokensRead: number }): Summarizer {
  const inner = new ExtractiveSummarizer({ counter });
  return {
    name: inner.name,
    maxTokens: inner.maxTokens,
    async summarize(input) {
      stats.calls++;
      stats.tokensRead +=
        counter.countMessages(input.messages) + (input.previousSummary ? counter.countText(input.previousSummary) : 0);
      return inner.summarize(input);
    },
  };
}

/**
 * This library around a createAgent graph; `strategy` builds the `strategy` option from the counting summarizer;
 * `lowWater`: the trigger as a share of the budget (a lower one compacts sooner, to a smaller head), the summary log.
 */
export function libraryContender(
  name: string,
  strategy?: (summarizer: Summarizer) => ThreadStrategy,
  lowWater: { triggerShare?: number; summaryLog?: "append" } = {},
): Contender {
  return {
    name,
    build(player, checkpointer, budget, counter) {
      const stats = { calls: 0, tokensRead: 0 };
      const summarizer = countingSummarizer(counter, stats);
      const agent = createAgent({
        model: player.model,
        tools: player.tools,
        checkpointer,
        systemPrompt: SYSTEM_PROMPT,
      });
      const supervisor = new CompactingSupervisor(agent, {
        trigger: { tokens: Math.floor(budget * (lowWater.triggerShare ?? 1)) },
        // The window at risk is the budget: a turn whose input would take the thread past it compacts first.
        model: modelWithHardLimit(budget),
        background: false,
        ...(lowWater.summaryLog ? { summaryLog: lowWater.summaryLog } : {}),
        // A pipeline's summarize step asks the wrapper's engine: its summarizer is the counting one too.
        summarizer,
        ...(strategy ? { strategy: strategy(summarizer) } : {}),
      });
      return {
        summarizer: stats,
        invoke: async (text, threadId) => void (await supervisor.invoke(turnInput(text), threadConfig(threadId))),
      };
    },
  };
}

/**
 * langchain's summarizationMiddleware over the same extractive text as a chat model, triggered at the budget and
 * keeping what `keep` says.
 */
export function summarizationContender(
  name: string,
  keep: (budget: number) => { tokens: number } | { messages: number },
): Contender {
  return {
    name,
    build(player, checkpointer, budget, counter) {
      const summaryModel = new ExtractiveChatModel(counter);
      const agent = createAgent({
        model: player.model,
        tools: player.tools,
        checkpointer,
        systemPrompt: SYSTEM_PROMPT,
        middleware: [
          summarizationMiddleware({
            model: summaryModel,
            trigger: { tokens: budget },
            keep: keep(budget),
            summaryPrompt: "{messages}",
          }),
        ],
      });
      return {
        summarizer: summaryModel,
        invoke: async (text, threadId) => void (await agent.invoke(turnInput(text), threadConfig(threadId))),
      };
    },
  };
}

export const CONTENDERS: Contender[] = [
  libraryContender("this library (CompactingSupervisor)"),
  libraryContender("this library, pipeline clear-tool-results → summarize", (summarizer) =>
    createPipeline([createStrategy("clear-tool-results"), createStrategy("summarize", { summarizer })]),
  ),
  summarizationContender("summarizationMiddleware (same summarizer)", (budget) => ({ tokens: Math.floor(budget / 2) })),
  {
    name: "trimMessages (sliding window)",
    build(player, checkpointer, budget, counter) {
      const window = slidingWindowMiddleware({ budget, systemPrompt: SYSTEM_PROMPT, counter, startOnHuman: true });
      const agent = createAgent({
        model: player.model,
        tools: player.tools,
        checkpointer,
        systemPrompt: SYSTEM_PROMPT,
        middleware: [window],
      });
      return {
        summarizer: { calls: 0, tokensRead: 0 },
        invoke: async (text, threadId) => void (await agent.invoke(turnInput(text), threadConfig(threadId))),
      };
    },
  },
  {
    name: "no compaction",
    build(player, checkpointer) {
      const agent = createAgent({
        model: player.model,
        tools: player.tools,
        checkpointer,
        systemPrompt: SYSTEM_PROMPT,
      });
      return {
        summarizer: { calls: 0, tokensRead: 0 },
        invoke: async (text, threadId) => void (await agent.invoke(turnInput(text), threadConfig(threadId))),
      };
    },
  },
];
