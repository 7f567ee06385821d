/**
 * fast-check arbitraries for agent histories that a provider would accept: leading system messages, user turns,
 * plain answers, tool calls (parallel ones answered in any order), supervisor handoff pairs, messages with and
 * without ids, empty, very long and unicode contents.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";

const TOOLS = ["search_orders", "read_file", "run_tests"];
const AGENTS = ["researcher", "coder"];

/** Message text: often short prose, sometimes empty, unicode (CJK, emoji, RTL, combining marks) or very long. */
export const text = fc.oneof(
  { weight: 6, arbitrary: fc.lorem({ maxCount: 12 }) },
  { weight: 1, arbitrary: fc.constant("") },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 60 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "請求書の合計は4200ユーロです。",
      "👩🏽‍💻 deploy ✅ 🚀",
      "مرحبا بالعالم",
      "e\u0301\u0301 zalgo",
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.lorem({ maxCount: 3 }), fc.integer({ min: 200, max: 1500 }))
      .map(([word, times]) => word.repeat(times)),
  },
);

type Segment =
  | { kind: "human"; content: string }
  | { kind: "answer"; content: string; name?: string }
  | { kind: "tools"; calls: string[]; results: string[]; order: number[]; content: string }
  | { kind: "handoff"; agent: string };

const segment: fc.Arbitrary<Segment> = fc.oneof(
  { weight: 4, arbitrary: text.map((content) => ({ kind: "human" as const, content })) },
  {
    weight: 3,
    arbitrary: fc
      .record({ content: text, name: fc.option(fc.constantFrom(...AGENTS), { nil: undefined }) })
      .map((value) => ({ kind: "answer" as const, ...value })),
  },
  {
    weight: 3,
    arbitrary: fc.integer({ min: 1, max: 4 }).chain((count) =>
      fc
        .record({
          calls: fc.array(fc.constantFrom(...TOOLS), { minLength: count, maxLength: count }),
          results: fc.array(text, { minLength: count, maxLength: count }),
          order: fc.shuffledSubarray([...Array(count).keys()], { minLength: count, maxLength: count }),
          content: fc.oneof(fc.constant(""), text),
        })
        .map((value) => ({ kind: "tools" as const, ...value })),
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(...AGENTS).map((agent) => ({ kind: "handoff" as const, agent })) },
);

export interface HistoryShape {
  systems: string[];
  segments: Segment[];
  /** Per message, whether it carries an id (cycled). */
  ids: boolean[];
}

export const historyShape: fc.Arbitrary<HistoryShape> = fc.record({
  systems: fc.array(fc.lorem({ maxCount: 8 }), { minLength: 0, maxLength: 2 }),
  segments: fc.array(segment, { minLength: 1, maxLength: 40 }),
  ids: fc.array(fc.boolean(), { minLength: 1, maxLength: 7 }),
});

/** Build the messages of a shape; `prefix` keeps ids unique across histories. */
export function buildHistory({ systems, segments, ids }: HistoryShape, prefix = "m"): BaseMessage[] {
  const messages: BaseMessage[] = [];
  let index = 0;
  const id = () => (ids[index++ % ids.length] ? { id: `${prefix}-${index}` } : {});
  for (const content of systems) messages.push(new SystemMessage({ ...id(), content }));
  segments.forEach((part, position) => {
    if (part.kind === "human") messages.push(new HumanMessage({ ...id(), content: part.content }));
    else if (part.kind === "answer")
      messages.push(new AIMessage({ ...id(), content: part.content, ...(part.name ? { name: part.name } : {}) }));
    else if (part.kind === "handoff") {
      const callId = `call_${prefix}_${position}_handoff`;
      messages.push(
        new AIMessage({
          ...id(),
          name: "supervisor",
          content: "",
          tool_calls: [{ id: callId, name: `transfer_to_${part.agent}`, args: {} }],
        }),
        new ToolMessage({
          ...id(),
          tool_call_id: callId,
          name: `transfer_to_${part.agent}`,
          content: `Successfully transferred to ${part.agent}`,
        }),
      );
    } else {
      const callIds = part.calls.map((_, call) => `call_${prefix}_${position}_${call}`);
      messages.push(
        new AIMessage({
          ...id(),
          content: part.content,
          tool_calls: part.calls.map((name, call) => ({ id: callIds[call]!, name, args: { query: `q${call}` } })),
        }),
      );
      for (const call of part.order) {
        messages.push(
          new ToolMessage({
            ...id(),
            tool_call_id: callIds[call]!,
            name: part.calls[call]!,
            content: part.results[call]!,
          }),
        );
      }
    }
  });
  return messages;
}

export const history = historyShape.map((shape) => buildHistory(shape));

/** A deep, comparable snapshot of messages (to prove inputs are not mutated). */
export function snapshot(messages: readonly BaseMessage[]): string {
  return JSON.stringify(messages.map((message) => message.toDict()));
}
