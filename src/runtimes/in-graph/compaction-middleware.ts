/**
 * The in-graph runtime for `createAgent`: `compactionMiddleware(options)` runs the in-graph step
 * (in-graph-compactor.ts) around each model call, inside the graph, so it works wherever the graph runs (the Agent
 * Server included). It counts what the model receives: the state's messages, plus the system prompt and the tools
 * measured at each call (the first call counts neither). After a call that crossed `tokenLimit` it starts the
 * summary; a later `beforeModel` applies it through the graph's own state update, `[RemoveMessage(REMOVE_ALL_MESSAGES),
 * summary, kept…]`, after writing what it removes to the transcript.
 */
import { RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import type { ToolDefinitionLike } from "../../tokens/tool-definitions.js";
import { InGraphCompactor, type InGraphOptions } from "./in-graph-compactor.js";

export type CompactionMiddlewareOptions = InGraphOptions;

/** @throws CompactionError INVALID_ARGUMENT for a bad option, or without a `tokenLimit` (in the graph, it is the trigger). */
export function compactionMiddleware(options: CompactionMiddlewareOptions) {
  const compactor = new InGraphCompactor(options);
  const { counter } = compactor.manager;
  // What the model receives besides the state's messages: measured at each call (the first call counts none).
  let overhead = 0;
  // The tools' count, kept while the call binds the same tool objects (counting them encodes every schema).
  let counted: { tools: readonly unknown[]; tokens: number } | undefined;
  const toolTokens = (tools: readonly unknown[]): number => {
    if (counted && counted.tools.length === tools.length && counted.tools.every((tool, index) => tool === tools[index])) return counted.tokens;
    counted = { tools: [...tools], tokens: tools.length === 0 ? 0 : counter.countTools(tools as readonly ToolDefinitionLike[]) };
    return counted.tokens;
  };

  const middleware = createMiddleware({
    name: "CompactionMiddleware",
    beforeModel: async (state, runtime) => {
      const messages = await compactor.before(state.messages as BaseMessage[], overhead, runtime, { start: false });
      return messages ? { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...messages] } : undefined;
    },
    wrapModelCall: async (request, handler) => {
      const system = request.systemMessage ? counter.countMessages([request.systemMessage]) : 0;
      overhead = system + toolTokens(request.tools ?? []);
      return handler(request);
    },
    afterModel: async (state, runtime) => {
      const messages = await compactor.after(state.messages as BaseMessage[], overhead, runtime);
      return messages ? { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...messages] } : undefined;
    },
  });
  return Object.assign(middleware, {
    /** Resolves once no summary is in flight (before the process exits, or to measure a turn after it). */
    idle: () => compactor.idle(),
  });
}
