/**
 * A transcript entry's message, stored whole: LangGraph's own serde (JsonPlusSerializer, what the checkpoint savers
 * write), so it comes back as the same message class with the same id, content, tool calls and metadata. Written
 * synchronously, inside the compare-and-swap's transaction (better-sqlite3's transactions are synchronous).
 */
import type { BaseMessage } from "@langchain/core/messages";
import { JsonPlusSerializer } from "@langchain/langgraph-checkpoint";

class TextSerializer extends JsonPlusSerializer {
  text(value: unknown): string {
    return new TextDecoder().decode(this._dumps(value));
  }

  revive(text: string): Promise<unknown> {
    return this._loads(text);
  }
}

const serializer = new TextSerializer();

export function serializeMessage(message: BaseMessage): string {
  return serializer.text(message);
}

export async function deserializeMessage(text: string): Promise<BaseMessage> {
  return (await serializer.revive(text)) as BaseMessage;
}
