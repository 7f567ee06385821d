/**
 * Plays a generated conversation through any compiled agent graph: a scripted chat model that answers each model
 * call with the plan's next reply (tool calls or the turn's text), tools that return the planned results, and a
 * record of what the model received on every call (tokens, whether a provider would reject it).
 */
import type { BaseMessage } from "@langchain/core/messages";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { z } from "zod";
import { TokenCounter } from "../../../src/tokens/token-counter.js";
import { validateHistory } from "../../../src/messages/validate.js";
import { ScriptedChatModel } from "../../../test/support/fakes/scripted-chat-model.js";
import { TOOL_NAMES, type Conversation, type PlannedReply } from "../../workload/conversation.js";

export interface CallRecord {
  tokens: number;
  rejected: boolean;
  /** What the model received (the prompt cache's view of the call: bench:cost). */
  messages: BaseMessage[];
  /** Tokens of what it answered. */
  output: number;
}

export interface Player {
  model: ScriptedChatModel;
  tools: StructuredToolInterface[];
  /** Make `turn` the turn the model plays next (`probe` for the final question). */
  begin(turn: number | "probe"): void;
  records: CallRecord[];
  /** What the model received on its last call. */
  lastSeen: BaseMessage[];
}

export function createPlayer(conversation: Conversation, counter: TokenCounter): Player {
  let replies: PlannedReply[] = [];
  let step = 0;
  let turnIndex = 0;
  const results = new Map<string, string>();
  const records: CallRecord[] = [];
  const player: Player = {
    records,
    lastSeen: [],
    tools: [],
    model: new ScriptedChatModel({
      reply: (messages) => {
        player.lastSeen = messages;
        // A ToolMessage last means the turn is under way; a fresh turn starts at its first reply.
        const reply = replies[Math.min(step, replies.length - 1)]!;
        const output = counter.countText(
          "text" in reply
            ? reply.text
            : JSON.stringify(reply.calls.map((call) => ({ name: call.name, args: call.args }))),
        );
        records.push({
          tokens: counter.countMessages(messages),
          rejected: validateHistory(messages).length > 0,
          messages: [...messages],
          output,
        });
        step++;
        if ("text" in reply) return { content: reply.text };
        return {
          toolCalls: reply.calls.map((call, index) => {
            const id = `call_t${turnIndex}_s${step}_${index}`;
            results.set(id, call.result);
            return { id, name: call.name, args: call.args };
          }),
        };
      },
    }),
    begin(turn) {
      step = 0;
      turnIndex = turn === "probe" ? conversation.turns.length : turn;
      replies =
        turn === "probe" ? [{ text: "Here is what I know about each workstream." }] : conversation.turns[turn]!.replies;
    },
  };
  player.tools = TOOL_NAMES.map((name) =>
    tool(
      async (_args: Record<string, unknown>, config) => {
        const id = (config as { toolCall?: { id?: string } } | undefined)?.toolCall?.id ?? "";
        return results.get(id) ?? `no planned result for ${id}`;
      },
      {
        name,
        description: name.startsWith("transfer_to_")
          ? `Hand the conversation to the ${name.slice(12)}.`
          : `The ${name.replace(/_/g, " ")} tool.`,
        schema: z.object({ query: z.string().optional() }),
      },
    ),
  );
  return player;
}
