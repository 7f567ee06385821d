/**
 * The in-graph runtime as a node: `compactionNode(options)` is a function of `(state, config)` that returns the
 * state update of the in-graph step (in-graph-compactor.ts) — `{ messages: Overwrite([summary, kept…]) }` or `{}` —
 * for `createReactAgent`'s and `createSupervisor`'s `preModelHook` and for a node before the model in a hand-written
 * `StateGraph` over a `messages` channel (the node's step must be the only one writing messages: an Overwrite takes
 * the place of every other write of its step).
 *
 * A node sees no model call, so the summary starts at the first call over `tokenLimit` (the call goes on) and is
 * applied at the next one; a call over `hardLimit`, or past the bound on lateness, waits. What the model receives
 * besides the state (a prompt, the tools) is counted when given as `prompt` and `tools`.
 *
 * In a graph that is itself a node of a parent (createSupervisor's supervisor agent), the parent merges the
 * subgraph's messages by id and would keep what the compaction removed: give the graph `CompactionAgentState`
 * (messages-reducer.ts) as its state schema. A node running in a subgraph whose messages did not come through that
 * schema's reducer says so at its first call in a thread, and a state that holds a message beside the summary
 * covering it says it was not: told once per thread (a `CANNOT_COMPACT` notice, a process warning without
 * `onCompactionNotice`, and `onCompactionError`).
 */
import { SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { Overwrite, type OverwriteValue } from "@langchain/langgraph";
import { argument } from "../../options/check.js";
import { array, satisfying } from "../../options/rules.js";
import type { ToolDefinitionLike } from "../../tokens/tool-definitions.js";
import { InGraphCompactor, type InGraphOptions } from "./in-graph-compactor.js";
import type { CompactionPolicy } from "../../engine/policy.js";

const PROMPT = satisfying(
  (value) => typeof value === "string" || typeof (value as BaseMessage | null)?.getType === "function",
  "a string or a message",
).optional();
const TOOLS = array("an array of tools").optional();
const STATE_MESSAGES = array("the graph's messages (a messages channel)");

export interface CompactionNodeOptions extends InGraphOptions {
  /** The prompt the model receives besides the state's messages (createReactAgent's `prompt`), counted. */
  prompt?: string | BaseMessage;
  /** The tools bound to the model, counted. */
  tools?: readonly unknown[];
}

export interface CompactionNodeUpdate {
  /** The compacted messages, replacing the state's (LangGraph's `Overwrite`: the node's step writes them alone). */
  messages?: OverwriteValue<BaseMessage[]>;
}

/** @throws CompactionError INVALID_ARGUMENT for a bad option, or without a `tokenLimit`. */
export interface CompactionNode {
  (state: { messages: BaseMessage[] }, config?: unknown): Promise<CompactionNodeUpdate>;
  /** Resolves once no summary is in flight (before the process exits, or to measure a turn after it). */
  idle(): Promise<void>;
  /** The resolved compaction policy (limits in tokens, the cut, the summary's budget), as every runtime resolves it. */
  readonly policy: CompactionPolicy;
}

export function compactionNode(options: CompactionNodeOptions): CompactionNode {
  const { prompt, tools, ...rest } = options;
  argument("prompt", prompt, PROMPT);
  argument("tools", tools, TOOLS);
  const compactor = new InGraphCompactor(rest);
  const { counter } = compactor.manager;
  const overhead =
    (prompt === undefined
      ? 0
      : counter.countMessages([typeof prompt === "string" ? new SystemMessage(prompt) : prompt])) +
    (tools && tools.length > 0 ? counter.countTools(tools as readonly ToolDefinitionLike[]) : 0);
  const node = async (state: { messages: BaseMessage[] }, config?: unknown): Promise<CompactionNodeUpdate> => {
    argument("state.messages", state?.messages, STATE_MESSAGES);
    compactor.checkSubgraph(state.messages, config);
    const messages = await compactor.before(state.messages, overhead, config, { start: true });
    // The new list as LangGraph's `Overwrite`, which replaces the channel's value (no reducer) and which the
    // "messages" stream does not read messages from: a UI streaming the model's tokens gets no summary to render.
    return messages ? { messages: new Overwrite(messages) } : {};
  };
  return Object.assign(node, { idle: () => compactor.idle(), policy: compactor.manager.policy });
}
