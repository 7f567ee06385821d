/**
 * Choosing whole units (a message, or an AI message with all its tool results) so a trimmed view never splits a
 * tool call from its results: the shared step of the strategies that drop messages from the view.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { groupUnits, type MessageUnit } from "../messages/units.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import { isPinned } from "../messages/pins.js";

export interface UnitInfo extends MessageUnit {
  tokens: number;
  pinned: boolean;
  /** Leading system messages (never dropped). */
  leading: boolean;
}

export function describeUnits(messages: readonly BaseMessage[], counter: TokenCounter): UnitInfo[] {
  const each = counter.countEach(messages);
  let leading = true;
  return groupUnits(messages).map((unit) => {
    leading &&= unit.kind === "system";
    let tokens = 0;
    let pin = false;
    for (let index = unit.start; index < unit.end; index++) {
      tokens += each[index]!;
      pin ||= isPinned(messages[index]!, index);
    }
    return { ...unit, tokens, pinned: pin, leading };
  });
}

/** The messages of the kept units, in order. */
export function keepUnits(
  messages: readonly BaseMessage[],
  units: readonly UnitInfo[],
  kept: ReadonlySet<UnitInfo>,
): BaseMessage[] {
  return units.filter((unit) => kept.has(unit)).flatMap((unit) => messages.slice(unit.start, unit.end));
}

/** Fixed per-request overhead the counter adds once (reply priming), so unit sums compare with countMessages. */
export function overheadOf(messages: readonly BaseMessage[], counter: TokenCounter): number {
  return counter.countMessages(messages) - counter.countEach(messages).reduce((sum, tokens) => sum + tokens, 0);
}
