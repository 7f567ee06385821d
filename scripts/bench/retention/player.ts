/**
 * Replays a recorded conversation through a real compiled graph: speaker A's turns are the user's messages, speaker
 * B's turns the model's replies (a scripted chat model returns the recorded text). Every message carries its
 * session's date in `additional_kwargs.timestamp` (the metadata this library reads dates from; providers never
 * receive it) and its speaker as `name`; ids are the dataset's turn ids, so a message can be traced to its turn.
 */
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { ScriptedChatModel } from "../../../test/support/fakes/scripted-chat-model.js";
import type { TokenCounter } from "../../../src/tokens/token-counter.js";
import type { Dialogue, DialogueTurn } from "./dataset.js";

/** One invoke: the user's turns since the last reply, and the reply the model gives (none for the final probe). */
export interface TurnGroup {
  inputs: DialogueTurn[];
  reply?: DialogueTurn;
  /** Session of the reply (of the last input for the final group). */
  session: number;
}

export const PROBE_REPLY = "(end of the recorded conversation)";

export function groupTurns(dialogue: Dialogue): TurnGroup[] {
  const groups: TurnGroup[] = [];
  let inputs: DialogueTurn[] = [];
  for (const turn of dialogue.turns) {
    if (turn.speaker === dialogue.speakerB) {
      groups.push({ inputs, reply: turn, session: turn.session });
      inputs = [];
    } else {
      inputs.push(turn);
    }
  }
  // The final probe: whatever the user said last (maybe nothing), answered with a fixed text.
  groups.push({ inputs, session: inputs.at(-1)?.session ?? dialogue.turns.at(-1)?.session ?? 1 });
  return groups;
}

export function userMessage(turn: DialogueTurn): HumanMessage {
  return new HumanMessage({
    id: turn.id,
    name: turn.speaker,
    content: turn.text,
    additional_kwargs: turn.date ? { timestamp: turn.date } : {},
  });
}

export interface CallRecord {
  group: number;
  tokens: number;
  messages: BaseMessage[];
}

export interface Player {
  model: ScriptedChatModel;
  /** Make group `index` the one the model answers next. */
  begin(index: number): void;
  records: CallRecord[];
}

export function createPlayer(groups: readonly TurnGroup[], counter: TokenCounter): Player {
  let current = 0;
  const records: CallRecord[] = [];
  const model = new ScriptedChatModel({
    reply: (messages) => {
      records.push({ group: current, tokens: counter.countMessages(messages), messages });
      const reply = groups[current]!.reply;
      if (!reply) return { content: PROBE_REPLY, id: `probe-${current}` };
      return {
        content: reply.text,
        id: reply.id,
        ...(reply.date ? { additionalKwargs: { timestamp: reply.date } } : {}),
      };
    },
  });
  return {
    model,
    records,
    begin(index) {
      current = index;
    },
  };
}
