import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { createRandom } from "../../scripts/workload/random.js";
import { mixedText } from "../../scripts/workload/text.js";

let nextId = 0;
function makeMessage(seed: number): BaseMessage {
  const random = createRandom(seed);
  const text = mixedText(seed, random.int(0, 400));
  const id = `m${nextId++}`;
  switch (random.int(0, 3)) {
    case 0:
      return new HumanMessage({ id, content: text });
    case 1:
      return new AIMessage({
        id,
        content: text,
        tool_calls: random.chance(0.5)
          ? [{ id: `call_${id}`, name: "lookup", args: { query: text.slice(0, 40) } }]
          : [],
      });
    case 2:
      return new ToolMessage({ id, content: text, tool_call_id: `call_${id}`, name: "lookup" });
    default:
      return new SystemMessage({ id, content: [{ type: "text", text }] });
  }
}

/** A copy as a checkpoint reload would produce: new objects, same ids and content. */
function reload(message: BaseMessage): BaseMessage {
  const Constructor = message.constructor as new (fields: Record<string, unknown>) => BaseMessage;
  const toolCalls = (message as AIMessage).tool_calls;
  return new Constructor({
    ...message,
    content: structuredClone(message.content),
    ...(toolCalls ? { tool_calls: structuredClone(toolCalls) } : {}),
  });
}

/** Same id and content, one counted detail changed: the name, or a tool call's name, arguments or key order. */
function tweak(message: BaseMessage, kind: number): BaseMessage {
  const Constructor = message.constructor as new (fields: Record<string, unknown>) => BaseMessage;
  const calls = structuredClone((message as AIMessage).tool_calls ?? []) as Array<{
    id?: string;
    name: string;
    args: Record<string, unknown>;
  }>;
  const fields: Record<string, unknown> = { ...message, content: structuredClone(message.content), tool_calls: calls };
  if (kind === 0 || calls.length === 0) fields.name = `${String(message.name ?? "")}renamed`;
  else if (kind === 1) calls[0]!.name = `${calls[0]!.name}_v2`;
  else if (kind === 2) calls[0]!.args = { ...calls[0]!.args, query: `${String(calls[0]!.args.query)} and more words` };
  else if (kind === 3) calls[0]!.args = { page: 2, ...calls[0]!.args };
  else calls.push({ id: "call_extra", name: "lookup", args: {} });
  return new Constructor(fields);
}

const edit = fc.oneof(
  fc.record({ kind: fc.constant("append" as const), seed: fc.nat() }),
  fc.record({ kind: fc.constant("replace" as const), seed: fc.nat(), at: fc.nat() }),
  fc.record({ kind: fc.constant("remove" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("reload" as const) }),
  fc.record({ kind: fc.constant("tweak" as const), at: fc.nat(), detail: fc.nat({ max: 4 }) }),
);

describe("incremental counting", () => {
  it("a cached count always equals a cold count, over random edits", () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 20 }), fc.array(edit, { maxLength: 25 }), (initial, edits) => {
        const warm = new TokenCounter({ model: "gpt-4o" });
        // A cache small enough to drop generations (and with them the remembered sequences) all along.
        const small = new TokenCounter({ model: "gpt-4o", cacheBytes: 4_096 });
        let thread = initial.map(makeMessage);
        warm.countMessages(thread);
        small.countMessages(thread);
        for (const step of edits) {
          if (step.kind === "append") thread = [...thread, makeMessage(step.seed)];
          else if (step.kind === "replace" && thread.length > 0) {
            const at = step.at % thread.length;
            const replacement = makeMessage(step.seed);
            // Same id, new content: the cache must not answer with the old count.
            replacement.id = thread[at]!.id;
            thread = thread.map((message, index) => (index === at ? replacement : message));
          } else if (step.kind === "remove" && thread.length > 0) {
            thread = thread.filter((_, index) => index !== step.at % thread.length);
          } else if (step.kind === "reload") thread = thread.map(reload);
          else if (step.kind === "tweak" && thread.length > 0) {
            const at = step.at % thread.length;
            thread = thread.map((message, index) => (index === at ? tweak(message, step.detail) : message));
          }
          const cold = new TokenCounter({ model: "gpt-4o" }).countMessages(thread);
          expect(warm.countMessages(thread)).toBe(cold);
          expect(small.countMessages(thread)).toBe(cold);
        }
      }),
      { numRuns: 80, seed: 42 },
    );
  });

  it("encodes only the messages it has not seen, also after a reload", () => {
    const counter = new TokenCounter({ model: "gpt-4o" });
    const thread = Array.from({ length: 200 }, (_, index) => makeMessage(index));
    counter.countMessages(thread);
    expect(counter.cacheStats.encoded).toBe(200);

    const next = [...thread, makeMessage(1_000)];
    counter.countMessages(next);
    expect(counter.cacheStats.encoded).toBe(201);

    counter.countMessages(next.map(reload));
    expect(counter.cacheStats.encoded).toBe(201);
  });

  it("notices an in-place edit of a counted message", () => {
    const counter = new TokenCounter({ model: "gpt-4o" });
    const message = new HumanMessage({ id: "x", content: "short" });
    const before = counter.countMessages([message]);
    message.content = "a considerably longer content than before, with many more tokens in it";
    expect(counter.countMessages([message])).toBe(new TokenCounter().countMessages([message]));
    expect(counter.countMessages([message])).toBeGreaterThan(before);
  });
});
