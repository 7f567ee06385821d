/**
 * Atomic units: the pieces a cut may never split.
 *
 * - an AI message with tool calls, together with every tool message answering one of its calls (parallel calls
 *   included, wherever the answers appear before the next unit starts);
 * - a supervisor handoff pair: an AI message calling `transfer_to_*` / `transfer_back_to_*` and its tool message
 *   (a special case of the above, named so reports can say "handoff");
 * - any other message alone.
 */

import type { BaseMessage } from "@langchain/core/messages";
import { isHandoffName, toolCallIdOf, toolCallsOf } from "./tool-calls.js";

export type UnitKind = "system" | "message" | "tool-exchange" | "handoff";

export interface MessageUnit {
  kind: UnitKind;
  /** Index of the first message in the history. */
  start: number;
  /** Index one past the last message. */
  end: number;
}

/**
 * Split `messages` into atomic units, in order. The units cover every index exactly once. A tool exchange extends
 * over the tool messages that directly follow it and answer one of its calls.
 */
export function groupUnits(messages: readonly BaseMessage[]): MessageUnit[] {
  const units: MessageUnit[] = [];
  let index = 0;
  while (index < messages.length) {
    const message = messages[index]!;
    const calls = toolCallsOf(message);
    if (calls.length > 0) {
      const callIds = new Set(calls.map((call) => call.id).filter((id): id is string => typeof id === "string"));
      let end = index + 1;
      while (end < messages.length) {
        const answer = toolCallIdOf(messages[end]!);
        if (answer === undefined || !callIds.has(answer)) break;
        end++;
      }
      units.push({
        kind: calls.every((call) => isHandoffName(call.name)) ? "handoff" : "tool-exchange",
        start: index,
        end,
      });
      index = end;
      continue;
    }
    units.push({ kind: message.getType() === "system" ? "system" : "message", start: index, end: index + 1 });
    index++;
  }
  return units;
}
