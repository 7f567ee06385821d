/**
 * A conversation plan as the messages a run without compaction stores: for tests of the generator and the scorer,
 * and to size the token budget of the peers benchmark.
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { Conversation } from "./conversation.js";

export function conversationMessages(conversation: Conversation): BaseMessage[] {
  const messages: BaseMessage[] = [];
  conversation.turns.forEach((turn, turnIndex) => {
    messages.push(new HumanMessage({ id: `u${turnIndex}`, content: turn.user }));
    turn.replies.forEach((reply, replyIndex) => {
      if ("text" in reply) {
        messages.push(new AIMessage({ id: `a${turnIndex}-${replyIndex}`, content: reply.text }));
        return;
      }
      const ids = reply.calls.map((_, call) => `call_${turnIndex}_${replyIndex}_${call}`);
      messages.push(
        new AIMessage({
          id: `a${turnIndex}-${replyIndex}`,
          content: "",
          tool_calls: reply.calls.map((call, index) => ({ id: ids[index]!, name: call.name, args: call.args })),
        }),
      );
      reply.calls.forEach((call, index) =>
        messages.push(
          new ToolMessage({
            id: `t${turnIndex}-${replyIndex}-${index}`,
            tool_call_id: ids[index]!,
            name: call.name,
            content: call.result,
          }),
        ),
      );
    });
  });
  return messages;
}
