/**
 * The convenience stream of `streamTokens`: model tokens with the name of the agent speaking, then the compaction
 * (if the turn triggered one), then done.
 */
import { AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import type { CompactedReport } from "../../engine/report.js";

export type TokenStreamEvent =
  | { type: "token"; content: string; agent: string; /** Id of the message the token belongs to. */ messageId?: string }
  | { type: "compaction"; report: CompactedReport }
  | { type: "done" };

/**
 * A "messages"-mode chunk (with `subgraphs: true`: `[namespace, [message, metadata]]`) as a token event, or
 * undefined for chunks that are not model tokens (tool messages, empty chunks).
 */
export function toTokenEvent(chunk: unknown): TokenStreamEvent | undefined {
  let namespace: string[] = [];
  let payload: unknown = chunk;
  if (Array.isArray(chunk) && chunk.length === 2 && Array.isArray(chunk[0]) && Array.isArray(chunk[1])) {
    namespace = chunk[0] as string[];
    payload = chunk[1];
  }
  if (!Array.isArray(payload) || payload.length !== 2) return undefined;
  const [message, metadata] = payload as [BaseMessage, Record<string, unknown>];
  if (!AIMessageChunk.isInstance(message)) return undefined;
  const content = typeof message.content === "string" ? message.content : message.text;
  if (!content) return undefined;
  const agent =
    (typeof message.name === "string" && message.name) ||
    (namespace.length > 0 ? namespace[0]!.split(":")[0]! : undefined) ||
    String(metadata?.langgraph_node ?? "agent");
  return { type: "token", content, agent, messageId: message.id };
}
