/**
 * The retention scorer: a planted fact is retained when every one of its key tokens appears in what the model
 * sees (message text, tool call arguments), reported overall and by where in the conversation it was planted.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { Conversation, PlantedFact } from "./conversation.js";

export const QUARTERS = ["first 25%", "25-50%", "50-75%", "last 25%"] as const;

export interface RetentionScore {
  retained: string[];
  missed: string[];
  /** Share of facts retained (0..1). */
  share: number;
  /** Share retained per quarter of the conversation the fact was planted in (NaN for a quarter with none). */
  byQuarter: number[];
}

/** Everything a model reads in `messages`: contents and tool call arguments. */
export function visibleText(messages: readonly BaseMessage[]): string {
  return messages
    .map((message) => {
      const content = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
      const calls = (message as BaseMessage & { tool_calls?: Array<{ name: string; args: unknown }> }).tool_calls ?? [];
      return [content, ...calls.map((call) => `${call.name} ${JSON.stringify(call.args)}`)].join("\n");
    })
    .join("\n");
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const patterns = new Map<string, RegExp>();

/** A key counts as a whole word: "48,213" is not found inside "148,213", nor "Ingrid" inside "Ingrida". */
function keyPattern(key: string): RegExp {
  let pattern = patterns.get(key);
  if (!pattern) {
    pattern = new RegExp(`(?<![\\p{L}\\p{N}])${escape(key)}(?![\\p{L}\\p{N}])`, "u");
    patterns.set(key, pattern);
  }
  return pattern;
}

export function isRetained(fact: PlantedFact, text: string): boolean {
  return fact.keys.every((key) => keyPattern(key).test(text));
}

export function quarterOf(fact: PlantedFact, conversation: Conversation): number {
  return Math.min(3, Math.floor((fact.turn / conversation.turns.length) * 4));
}

export function scoreRetention(conversation: Conversation, seen: readonly BaseMessage[] | string): RetentionScore {
  const text = typeof seen === "string" ? seen : visibleText(seen);
  const retained: string[] = [];
  const missed: string[] = [];
  const totals = [0, 0, 0, 0];
  const kept = [0, 0, 0, 0];
  for (const fact of conversation.facts) {
    const quarter = quarterOf(fact, conversation);
    totals[quarter]!++;
    if (isRetained(fact, text)) {
      retained.push(fact.id);
      kept[quarter]!++;
    } else {
      missed.push(fact.id);
    }
  }
  return {
    retained,
    missed,
    share: conversation.facts.length === 0 ? 1 : retained.length / conversation.facts.length,
    byQuarter: totals.map((total, index) => (total === 0 ? Number.NaN : kept[index]! / total)),
  };
}
