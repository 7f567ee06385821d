/**
 * The contenders of the retention benchmark, each a real compiled graph (langchain's createAgent) over the same
 * replaying model, at the same token budget:
 * - this library with its defaults (CompactingSupervisor, offline ExtractiveSummarizer), with the summary's
 *   recencyWeight 2, with sentences as written (compactSentences false), and with strategies;
 * - this library with LlmSummarizer over ChatOpenAI, only when OPENAI_API_KEY is set;
 * - this library as createAgent middleware (compactionMiddleware, the same summarizer, in the graph);
 * - summarizationMiddleware (`trigger` = budget, `keep` = half of it) with the same extractive summarizer;
 * - trimMessages as a sliding window (strategy "last", the same counter) on every model call;
 * - no compaction.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { createAgent, summarizationMiddleware } from "langchain";
import { createDefaultSummarizer } from "../../../src/summarizers/default.js";
import { ExtractiveSummarizer } from "../../../src/summarizers/extractive.js";
import type { Summarizer } from "../../../src/summarizers/types.js";
import type { SummarizerTokens } from "../../../src/engine/summarizer-tokens.js";
import { createStrategy } from "../../../src/strategies/registry.js";
import { createPipeline } from "../../../src/strategies/pipeline.js";
import type { ThreadStrategy } from "../../../src/strategies/types.js";
import { CompactingSupervisor } from "../../../src/runtimes/wrapper/compacting-supervisor.js";
import { HistoryManager } from "../../../src/engine/history-manager.js";
import { compactionMiddleware } from "../../../src/runtimes/in-graph/compaction-middleware.js";
import { searchHistory } from "../../../src/recall/search.js";
import type { SearchHit } from "../../../src/store/recall-index/types.js";
import type { RecallFilterOptions } from "../../../src/store/recall-index/filter.js";
import { RECALL_AT } from "./recall.js";
import type { TokenCounter } from "../../../src/tokens/token-counter.js";
import type { ScriptedChatModel } from "../../../test/support/fakes/scripted-chat-model.js";
import { slidingWindowMiddleware } from "../sliding-window.js";
import { ExtractiveChatModel } from "../peers/extractive-chat-model.js";

export interface SummarizerStats {
  calls: number;
  ms: number;
}

export interface RunningContender {
  /**
   * One turn: the user's new messages (maybe none), answered by the replaying model. `coldCache`: the turn opens a
   * session (days after the previous one): the provider's prompt cache is cold.
   */
  invoke(messages: BaseMessage[], threadId: string, turn?: { coldCache: boolean }): Promise<void>;
  summarizer: SummarizerStats;
  /** The summarizer's own tokens for the thread, as its provider reported them (this library's wrapper). */
  summarizerTokens?(threadId: string): SummarizerTokens;
  /**
   * The prompt cache the thread's compactions broke: the tokens of each new head from its first changed message on
   * (the reports' `rewrittenTokens`), summed, and the compactions (this library's wrapper).
   */
  rewritten?(threadId: string): { tokens: number; compactions: number };
  /** One search of the messages compacted out of the thread (this library's contenders). */
  search?(threadId: string, query: string, filters?: RecallFilterOptions): Promise<SearchHit[]>;
}

export interface ContenderContext {
  model: ScriptedChatModel;
  checkpointer: BaseCheckpointSaver;
  budget: number;
  counter: TokenCounter;
  systemPrompt: string;
  /** The replying speaker: the agent's name, so replies carry it as `name`. */
  agentName: string;
}

export interface RetentionContender {
  name: string;
  /** True for contenders that run only when configured (the LLM row without OPENAI_API_KEY). */
  skip?: () => string | undefined;
  build(context: ContenderContext): RunningContender;
}

const threadConfig = (threadId: string) => ({ configurable: { thread_id: threadId }, recursionLimit: 50 });

function timed(inner: Summarizer, stats: SummarizerStats): Summarizer {
  return {
    name: inner.name,
    model: inner.model,
    maxTokens: inner.maxTokens,
    async summarize(input) {
      const started = performance.now();
      try {
        return await inner.summarize(input);
      } finally {
        stats.calls++;
        stats.ms += performance.now() - started;
      }
    },
  };
}

/** One search of the thread's compacted messages, as every library contender answers it. */
function searchOf(checkpointer: BaseCheckpointSaver): NonNullable<RunningContender["search"]> {
  return (threadId, query, filters = {}) =>
    searchHistory(checkpointer, { configurable: { thread_id: threadId } }, query, { limit: RECALL_AT, ...filters });
}

export interface LibraryVariant {
  strategy?: (summarizer: Summarizer) => ThreadStrategy;
  compactionRatio?: number;
  /** The trigger at this share of the budget (a lower one compacts sooner, to a smaller head: cheaper). @default 1 */
  triggerShare?: number;
  /** The summary as a log of segments (`summaryLog: "append"`) instead of one running summary. */
  summaryLog?: "append";
}

/** This library around the agent, with its defaults unless `variant` says otherwise; compaction applied before the next turn. */
export function library(
  name: string,
  makeSummarizer: (counter: TokenCounter) => Summarizer,
  variant: LibraryVariant = {},
): RetentionContender {
  return {
    name,
    build({ model, checkpointer, budget, counter, systemPrompt, agentName }) {
      const stats = { calls: 0, ms: 0 };
      const summarizer = timed(makeSummarizer(counter), stats);
      const agent = createAgent({ model, checkpointer, systemPrompt, name: agentName });
      const rewritten = new Map<string, { tokens: number; compactions: number }>();
      const supervisor = new CompactingSupervisor(agent, {
        trigger: { tokens: Math.floor(budget * (variant.triggerShare ?? 1)) },
        onCompaction: (report) => {
          if (report.status !== "compacted") return;
          const { threadId, rewrittenTokens } = report;
          const sum = rewritten.get(threadId) ?? { tokens: 0, compactions: 0 };
          rewritten.set(threadId, { tokens: sum.tokens + rewrittenTokens, compactions: sum.compactions + 1 });
        },
        ...(variant.compactionRatio !== undefined ? { compactionRatio: variant.compactionRatio } : {}),
        ...(variant.summaryLog ? { summaryLog: variant.summaryLog } : {}),
        ...(variant.strategy ? { strategy: variant.strategy(summarizer) } : { summarizer }),
      });
      return {
        summarizer: stats,
        search: searchOf(checkpointer),
        summarizerTokens: (threadId) => supervisor.compactionHealth(threadId).summarizerTokens,
        rewritten: (threadId) => rewritten.get(threadId) ?? { tokens: 0, compactions: 0 },
        async invoke(messages, threadId) {
          await supervisor.invoke({ messages }, threadConfig(threadId));
          // Background compaction (the default) finishes before the next turn is measured, whatever the machine's speed.
          await supervisor.flush();
        },
      };
    },
  };
}

/**
 * A prototype of cache-aware scheduling, not a library option: the defaults, plus a compaction (to the same low-water
 * mark) at every turn that finds the prompt cache cold (a new session) while the thread holds `mark` of the limit or
 * more — the rewrite is free there, and the next warm one comes later. bench:cost prices it against simply a lower
 * low-water mark.
 */
export function coldStartContender(name: string, mark: number): RetentionContender {
  return {
    name,
    build({ model, checkpointer, budget, counter, systemPrompt, agentName }) {
      const stats = { calls: 0, ms: 0 };
      const summarizer = timed(new ExtractiveSummarizer({ counter }), stats);
      const agent = createAgent({ model, checkpointer, systemPrompt, name: agentName });
      const supervisor = new CompactingSupervisor(agent, { trigger: { tokens: budget }, summarizer });
      const manager = new HistoryManager({ checkpointer, trigger: { tokens: budget }, summarizer });
      return {
        summarizer: stats,
        async invoke(messages, threadId, turn) {
          const config = threadConfig(threadId);
          if (turn?.coldCache && (supervisor.compactionHealth(threadId).tokens ?? 0) >= budget * mark)
            await manager.compactThread(config, { force: true });
          await supervisor.invoke({ messages }, config);
          await supervisor.flush();
        },
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
): RetentionContender {
  return {
    name,
    build({ model, checkpointer, budget, counter, systemPrompt, agentName }) {
      const summaryModel = new ExtractiveChatModel(counter);
      const agent = createAgent({
        model,
        checkpointer,
        systemPrompt,
        name: agentName,
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
        get summarizer() {
          return { calls: summaryModel.calls, ms: summaryModel.ms };
        },
        invoke: async (messages, threadId) => void (await agent.invoke({ messages }, threadConfig(threadId))),
      };
    },
  };
}

/** The defaults with the summary as a log of segments (engine/summary-log.ts). */
export const SUMMARY_LOG = 'this library, summaryLog "append" (segments)';

export const RETENTION_CONTENDERS: RetentionContender[] = [
  library("this library (defaults, offline)", (counter) => new ExtractiveSummarizer({ counter })),
  library(SUMMARY_LOG, (counter) => new ExtractiveSummarizer({ counter }), { summaryLog: "append" }),
  library(
    "this library, recencyWeight 2 (newest segment first)",
    (counter) => new ExtractiveSummarizer({ counter, recencyWeight: 2 }),
  ),
  library(
    "this library, compactSentences false (sentences as written)",
    (counter) => new ExtractiveSummarizer({ counter, compactSentences: false }),
  ),
  library("this library, compactionRatio 0.5 (the seed's policy)", (counter) => new ExtractiveSummarizer({ counter }), {
    compactionRatio: 0.5,
  }),
  library("this library, pipeline smart-trim → summarize", (counter) => new ExtractiveSummarizer({ counter }), {
    strategy: (summarizer) =>
      createPipeline([createStrategy("smart-trim"), createStrategy("summarize", { summarizer })]),
  }),
  {
    ...library("this library, LlmSummarizer (OPENAI_API_KEY)", (counter) =>
      createDefaultSummarizer({ env: process.env, counter }),
    ),
    skip: () => (process.env.OPENAI_API_KEY ? undefined : "OPENAI_API_KEY is not set"),
  },
  {
    name: "this library as createAgent middleware",
    build({ model, checkpointer, budget, counter, systemPrompt, agentName }) {
      const stats = { calls: 0, ms: 0 };
      const summarizer = timed(new ExtractiveSummarizer({ counter }), stats);
      const middleware = compactionMiddleware({ trigger: { tokens: budget }, summarizer, env: {} });
      const agent = createAgent({ model, checkpointer, systemPrompt, name: agentName, middleware: [middleware] });
      return {
        summarizer: stats,
        search: searchOf(checkpointer),
        async invoke(messages, threadId) {
          await agent.invoke({ messages }, threadConfig(threadId));
          // A summary started off the model call finishes before the next turn is measured, as the wrapper's flush().
          await middleware.idle();
        },
      };
    },
  },
  summarizationContender("summarizationMiddleware (same summarizer)", (budget) => ({ tokens: Math.floor(budget / 2) })),
  {
    name: "trimMessages (sliding window)",
    build({ model, checkpointer, budget, counter, systemPrompt, agentName }) {
      const window = slidingWindowMiddleware({ budget, systemPrompt, counter });
      const agent = createAgent({ model, checkpointer, systemPrompt, name: agentName, middleware: [window] });
      return {
        summarizer: { calls: 0, ms: 0 },
        invoke: async (messages, threadId) => void (await agent.invoke({ messages }, threadConfig(threadId))),
      };
    },
  },
  {
    name: "no compaction",
    build({ model, checkpointer, systemPrompt, agentName }) {
      const agent = createAgent({ model, checkpointer, systemPrompt, name: agentName });
      return {
        summarizer: { calls: 0, ms: 0 },
        invoke: async (messages, threadId) => void (await agent.invoke({ messages }, threadConfig(threadId))),
      };
    },
  },
];
