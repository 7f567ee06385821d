/**
 * The archive inside the graph, as the wrapper's `archive` option: after a model call, tool results above the
 * threshold move into the graph's BaseStore and the state keeps pointers (ids and tool call ids unchanged); the
 * transcript keeps the originals, the reader tool reads them back, and the summary then works on the smaller state.
 */
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolOutputArchive } from "../../src/archive/archive.js";
import { editOf } from "../../src/messages/markers.js";
import { getSummaryProvenance } from "../../src/messages/summary-message.js";
import { validateHistory } from "../../src/messages/validate.js";
import { readTranscript } from "../../src/recall/transcript.js";
import { compactionMiddleware } from "../../src/runtimes/in-graph/compaction-middleware.js";
import { compactionNode } from "../../src/runtimes/in-graph/compaction-node.js";
import type { InGraphOptions } from "../../src/runtimes/in-graph/in-graph-compactor.js";
import { ScriptedChatModel, type ReplyPolicy } from "../support/fakes/scripted-chat-model.js";

const report = (name: string) =>
  Array.from({ length: 300 }, (_, line) => `${name} line ${line}: request ${line * 7} took ${line % 13} ms`).join("\n");
const fetchReport = tool(async ({ name }: { name: string }) => report(name), {
  name: "fetch_report",
  description: "Fetch a report.",
  schema: z.object({ name: z.string() }),
});

/** "report X" fetches report X, then answers; anything else is answered at once. */
const policy: ReplyPolicy = (messages) => {
  const last = messages.at(-1)!;
  if (ToolMessage.isInstance(last)) return { content: `Read ${String(last.content).length} characters.` };
  const match = HumanMessage.isInstance(last) ? /^report (\w+)/.exec(String(last.content)) : null;
  return match ? { toolCalls: [{ name: "fetch_report", args: { name: match[1] } }] } : { content: "Noted." };
};

interface Graph {
  invoke(input: { messages: BaseMessage[] }, config: object): Promise<{ messages: unknown }>;
  getState(config: object): Promise<{ values: unknown }>;
}

const forms: Array<[string, (saver: MemorySaver, store: InMemoryStore, options: InGraphOptions) => Graph]> = [
  [
    "compactionMiddleware (archived after the model call)",
    (saver, store, options) =>
      createAgent({
        model: new ScriptedChatModel({ reply: policy }),
        tools: [fetchReport],
        checkpointer: saver,
        store,
        middleware: [compactionMiddleware(options)],
      }),
  ],
  [
    "compactionNode (archived before the model call)",
    (saver, store, options) =>
      createReactAgent({
        llm: new ScriptedChatModel({ reply: policy }),
        tools: [fetchReport],
        checkpointer: saver,
        store,
        preModelHook: compactionNode(options),
      }),
  ],
];

describe.each(forms)("the archive in the graph: %s", (_, build) => {
  it("moves old large tool outputs to the graph's store, keeps pointers in the state and originals in the transcript", async () => {
    const saver = new MemorySaver();
    const store = new InMemoryStore();
    const agent = build(saver, store, {
      trigger: { tokens: 200_000 },
      env: {},
      archive: new ToolOutputArchive({ thresholdTokens: 500 }),
    });
    const config = { configurable: { thread_id: "archive" } };
    const seen = new Map<string, BaseMessage>();
    for (const [index, name] of ["alpha", "beta", "gamma"].entries()) {
      const result = await agent.invoke(
        { messages: [new HumanMessage({ id: `u-${index}`, content: `report ${name}` })] },
        config,
      );
      for (const message of result.messages as BaseMessage[])
        if (message.id && !getSummaryProvenance(message) && !seen.has(message.id)) seen.set(message.id, message);
    }
    const state = ((await agent.getState(config)).values as { messages: BaseMessage[] }).messages;
    expect(validateHistory(state)).toEqual([]);
    const pointers = state.filter((message) => ToolMessage.isInstance(message) && editOf(message));
    // Each pointer names the key its output is stored under.
    const keys = pointers.map((message) => (editOf(message) as { key?: string }).key!);
    expect(keys.length).toBeGreaterThanOrEqual(2);
    expect(pointers.length).toBeGreaterThanOrEqual(2);
    const reader = new ToolOutputArchive({ store });
    expect((await reader.read(keys[0]!))!.content).toBe(report("alpha"));
    // Nothing lost: the transcript shows every message as it was, the archived ones whole.
    const transcript = await readTranscript(saver, config, { limit: 1_000, store });
    expect(transcript.messages.filter((line) => line.edited)).toHaveLength(pointers.length);
    expect(transcript.messages.map((line) => line.message.id)).toEqual([...seen.keys()]);
    for (const line of transcript.messages) expect(line.message.content).toEqual(seen.get(line.message.id!)!.content);
  });
});

describe("the archive refuses bad options where it is made, and the runtimes take only an archive", () => {
  it("names the option and its value", () => {
    expect(() => new ToolOutputArchive({ thresholdTokens: -1 })).toThrow(/thresholdTokens.*-1/);
    expect(() => new ToolOutputArchive({ keep: "one" as never })).toThrow(/archive.keep.*"one"/);
    expect(() =>
      compactionMiddleware({ trigger: { tokens: 1_000 }, env: {}, archive: { thresholdTokens: 500 } as never }),
    ).toThrow(/archive must be a tool-output archive \(new ToolOutputArchive/);
    expect(() =>
      compactionNode({ trigger: { tokens: 1_000 }, env: {}, archive: { thresholdTokens: 500 } as never }),
    ).toThrow(/archive must be a tool-output archive/);
  });
});
