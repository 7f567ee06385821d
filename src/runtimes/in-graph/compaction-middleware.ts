/**
 * The in-graph runtime for `createAgent`: `compactionMiddleware(options)` runs the engine (the HistoryManager's
 * policy, plan, summary and fit) before each model call, inside the graph, so it works wherever the graph runs. It
 * counts what the model receives (the state's messages, the system prompt and the tools, measured at each call)
 * and, over the limit, writes the messages it takes out to the transcript of `checkpointer` (its recall index:
 * idempotent by message id) before returning the state update `[RemoveMessage(REMOVE_ALL_MESSAGES), system…,
 * summary, kept…]`. A summarizer that fails writes nothing and the model call goes on with the history as it was.
 *
 * This first form compacts in `beforeModel`, on the model call's path; a summary computed off the call is not built
 * yet.
 */
import { RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { createMiddleware } from "langchain";
import { invalidArgument } from "../../errors.js";
import { HistoryManager } from "../../engine/history-manager.js";
import type { HistoryManagerOptions } from "../../engine/manager-options.js";
import { recallChanges } from "../../store/recall-index/entries.js";
import type { ToolDefinitionLike } from "../../tokens/tool-definitions.js";

export interface CompactionMiddlewareOptions extends Omit<HistoryManagerOptions, "checkpointer" | "keepCheckpoints"> {
  /** The agent's checkpointer: the transcript of each compaction goes to its recall index (SQLite, Postgres, MemorySaver). */
  checkpointer: BaseCheckpointSaver;
  /** Told about every compaction written (the messages before and after). */
  onCompaction?: (event: { threadId: string | undefined; messagesBefore: number; messagesAfter: number; tokensBefore: number; tokensAfter: number }) => void;
  /** Told why a compaction was not written (a failing summarizer, a store error); the model call goes on. */
  onCompactionError?: (error: unknown) => void;
}

/** @throws CompactionError INVALID_ARGUMENT for a bad option, or without a `tokenLimit` (in-graph, it is the trigger). */
export function compactionMiddleware(options: CompactionMiddlewareOptions) {
  const { onCompaction, onCompactionError, ...managerOptions } = options;
  const manager = new HistoryManager(managerOptions);
  const { tokenLimit, ceiling } = manager.policy;
  if (tokenLimit === undefined) throw invalidArgument("tokenLimit", tokenLimit, "a number of tokens (the middleware compacts before a model call over it)");
  const { counter } = manager;
  // What the model receives besides the state's messages: measured at each call (the first call counts none).
  let overhead = 0;
  // The tools' count, kept while the call binds the same tool objects (counting them encodes every schema).
  let counted: { tools: readonly unknown[]; tokens: number } | undefined;
  const toolTokens = (tools: readonly unknown[]): number => {
    if (counted && counted.tools.length === tools.length && counted.tools.every((tool, index) => tool === tools[index])) return counted.tokens;
    counted = { tools: [...tools], tokens: tools.length === 0 ? 0 : counter.countTools(tools as readonly ToolDefinitionLike[]) };
    return counted.tokens;
  };

  return createMiddleware({
    name: "CompactionMiddleware",
    beforeModel: async (state, runtime) => {
      const messages = state.messages as BaseMessage[];
      const tokensBefore = counter.countMessages(messages) + overhead;
      if (tokensBefore <= tokenLimit) return undefined;
      const threadId = runtime.configurable?.thread_id === undefined ? undefined : String(runtime.configurable.thread_id);
      try {
        const compacted = await manager.compactWithinPolicy(messages, {
          maxTokensAfter: Math.max(1, tokenLimit - overhead),
          preferTokensAfter: Math.max(1, (ceiling ?? tokenLimit) - overhead),
        });
        if ("skipped" in compacted) return undefined;
        // The transcript first: a run that dies before its state update leaves the messages in both places, never in none.
        if (threadId !== undefined) {
          const headId = (await manager.store.readHeadId(threadId)) ?? "in-graph";
          await manager.store.recall.record(recallChanges(threadId, headId, messages, compacted.messages));
        }
        onCompaction?.({ threadId, messagesBefore: messages.length, messagesAfter: compacted.messages.length, tokensBefore, tokensAfter: counter.countMessages(compacted.messages) + overhead });
        return { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...compacted.messages] };
      } catch (error) {
        onCompactionError?.(error);
        return undefined;
      }
    },
    wrapModelCall: async (request, handler) => {
      const system = request.systemMessage ? counter.countMessages([request.systemMessage]) : 0;
      overhead = system + toolTokens(request.tools ?? []);
      return handler(request);
    },
  });
}
