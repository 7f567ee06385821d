/**
 * The in-graph runtime for `createAgent`: `compactionMiddleware(options)` runs the in-graph step
 * (in-graph-compactor.ts) in the model call itself (`wrapModelCall`), inside the graph, so it works wherever the graph
 * runs (the Agent Server included) and adds no step to it: a turn writes the checkpoints it writes without the
 * middleware. It counts what the model receives: the state's messages, the system prompt and the tools. Before the
 * call it applies a summary that is ready (or one it must wait for: `hardLimit`, `lateness`), and the model sees the
 * compacted messages; after a call whose context crossed `tokenLimit` it starts the summary of it. The state changes
 * only when a compaction (or an archive) changes it: the call's update is then `[RemoveMessage(REMOVE_ALL_MESSAGES),
 * summary, kept…, reply]`, after the messages it removes were written to the transcript; else it is the reply alone.
 */
import { RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import { Command, REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import type { ToolDefinitionLike } from "../../tokens/tool-definitions.js";
import { InGraphCompactor, type InGraphOptions } from "./in-graph-compactor.js";

export type CompactionMiddlewareOptions = InGraphOptions;

/** @throws CompactionError INVALID_ARGUMENT for a bad option, or without a `tokenLimit` (in the graph, it is the trigger). */
export function compactionMiddleware(options: CompactionMiddlewareOptions) {
  const compactor = new InGraphCompactor(options);
  const { counter } = compactor.manager;
  // The tools' count, kept while the call binds the same tool objects (counting them encodes every schema).
  let counted: { tools: readonly unknown[]; tokens: number } | undefined;
  const toolTokens = (tools: readonly unknown[]): number => {
    if (counted && counted.tools.length === tools.length && counted.tools.every((tool, index) => tool === tools[index]))
      return counted.tokens;
    counted = {
      tools: [...tools],
      tokens: tools.length === 0 ? 0 : counter.countTools(tools as readonly ToolDefinitionLike[]),
    };
    return counted.tokens;
  };

  const middleware = createMiddleware({
    name: "CompactionMiddleware",
    wrapModelCall: async (request, handler) => {
      const overhead =
        (request.systemMessage ? counter.countMessages([request.systemMessage]) : 0) + toolTokens(request.tools ?? []);
      const messages = request.messages as BaseMessage[];
      const compacted = await compactor.before(messages, overhead, request.runtime, { start: false });
      const read = compacted ?? messages;
      const reply = await handler(compacted ? { ...request, messages: compacted } : request);
      // What the model read, for a summarizer that starts its request with it (the provider's cache serves it).
      const prompt = {
        messages: read,
        tools: request.tools ?? [],
        ...(request.systemMessage ? { system: request.systemMessage } : {}),
      };
      const archived = await compactor.after([...read, reply], overhead, request.runtime, prompt);
      const head = archived ?? (compacted ? [...compacted, reply] : undefined);
      if (!head) return reply;
      // The agent writes the reply before this update, which ends with it again (the same id): the head is the
      // compacted messages, then the reply. Written as [channel, value] pairs, a form of update LangGraph's
      // "messages" stream does not read messages from: a UI streaming the model's tokens gets no removal and no
      // summary to render (the "values" and "updates" streams carry the new state as for any update).
      return new Command({ update: [["messages", [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...head]]] });
    },
  });
  return Object.assign(middleware, {
    /** Resolves once no summary is in flight (before the process exits, or to measure a turn after it). */
    idle: () => compactor.idle(),
    /** The resolved compaction policy (limits in tokens, the cut, the summary's budget), as every runtime resolves it. */
    policy: compactor.manager.policy,
  });
}
