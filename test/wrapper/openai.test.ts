import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph-checkpoint";
import { ChatOpenAI } from "@langchain/openai";
import { afterEach, describe, expect, it } from "vitest";
import type { CompactionReport } from "../../src/engine/report.js";
import { validateHistory } from "../../src/messages/validate.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import type { TokenStreamEvent } from "../../src/runtimes/wrapper/token-events.js";
import { createTeam } from "../support/team.js";
import {
  contextLengthExceeded,
  startChatCompletionsServer,
  type ChatCompletionsRequest,
  type ChatCompletionsServer,
  type ServerReply,
} from "../support/fakes/chat-completions-server.js";

let server: ChatCompletionsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function toolNames(request: ChatCompletionsRequest): string[] {
  return (request.tools ?? []).map((tool) => (tool as { function: { name: string } }).function.name);
}

/** Plays supervisor, researcher and coder depending on the tools each request carries. */
function teamPolicy(maxMessages: () => number) {
  return (request: ChatCompletionsRequest): ServerReply => {
    if (request.messages.length > maxMessages()) return contextLengthExceeded(request.messages.length * 1000);
    const tools = toolNames(request);
    const last = request.messages.at(-1)!;
    if (tools.includes("transfer_to_researcher")) {
      if (last.role === "user")
        return { content: "Asking the researcher.", toolCalls: [{ name: "transfer_to_researcher", arguments: "{}" }] };
      return { content: "Final answer: Stripe fees are 1.4% plus 0.25 EUR." };
    }
    if (tools.includes("search_docs")) {
      if (last.role === "tool" && String(last.content).startsWith("Results for"))
        return { content: "The docs say 1.4% plus 0.25 EUR per EU card." };
      return { toolCalls: [{ name: "search_docs", arguments: JSON.stringify({ query: "stripe fees" }) }] };
    }
    return { content: "The tests pass." };
  };
}

async function openAITeam(maxMessages: () => number) {
  server = await startChatCompletionsServer(teamPolicy(maxMessages));
  const model = () =>
    new ChatOpenAI({
      model: "gpt-4o-mini",
      apiKey: "sk-local-test",
      maxRetries: 0,
      configuration: { baseURL: server!.url },
    });
  return createTeam(new MemorySaver(), { supervisor: model(), researcher: model(), coder: model() });
}

describe("CompactingSupervisor with ChatOpenAI against a local Chat Completions server", () => {
  it("streams the server's SSE tokens through stream() and streamTokens() unchanged", async () => {
    const team = await openAITeam(() => 1_000);
    const supervisor = new CompactingSupervisor(team, { trigger: { tokens: 100_000 }, model: "gpt-4o-mini" });
    const config = { configurable: { thread_id: "sse" } };
    const events: TokenStreamEvent[] = [];
    for await (const event of supervisor.streamTokens(
      { messages: [new HumanMessage("What are the Stripe fees?")] },
      config,
    ))
      events.push(event);
    const text = (agent: string) =>
      events
        .filter((event) => event.type === "token" && event.agent === agent)
        .map((event) => (event as { content: string }).content)
        .join("");
    expect(text("supervisor")).toContain("Final answer: Stripe fees are 1.4% plus 0.25 EUR.");
    expect(text("researcher")).toContain("The docs say 1.4% plus 0.25 EUR per EU card.");
    expect(server!.requests.some((request) => request.body.stream === true)).toBe(true);

    const chunks: string[] = [];
    const stream = await supervisor.stream(
      { messages: [new HumanMessage("And for EU cards?")] },
      { ...config, streamMode: "messages", subgraphs: true },
    );
    for await (const [, [message]] of stream as AsyncIterable<[string[], [BaseMessage, unknown]]>)
      if (message.getType() === "ai") chunks.push(String(message.content));
    expect(chunks.join("")).toContain("The docs say 1.4% plus 0.25 EUR per EU card.");
    expect(chunks.filter((chunk) => chunk.length > 0).length).toBeGreaterThan(10);
  });

  it("recovers from a 400 context_length_exceeded by compacting and retrying the turn", async () => {
    let maxMessages = 1_000;
    const team = await openAITeam(() => maxMessages);
    const reports: CompactionReport[] = [];
    const supervisor = new CompactingSupervisor(team, {
      trigger: { tokens: 100_000 },
      onCompaction: (report) => void (report.status === "compacted" && reports.push(report)),
    });
    const config = { configurable: { thread_id: "overflow" } };
    for (let turn = 0; turn < 6; turn++)
      await supervisor.invoke({ messages: [new HumanMessage(`Stripe question ${turn}`)] }, config);
    const size = ((await supervisor.getState(config)).values.messages as BaseMessage[]).length;
    maxMessages = size - 4;
    const result = await supervisor.invoke({ messages: [new HumanMessage("the question that overflows")] }, config);
    expect(String((result.messages as BaseMessage[]).at(-1)!.content)).toContain("Final answer");
    expect(
      server!.requests.some((request) => request.raw.includes("context_length_exceeded")) || reports.length > 0,
    ).toBe(true);
    expect(reports.at(-1)!.reason).toMatch(/recovered/);
    const head = (await supervisor.getState(config)).values.messages as BaseMessage[];
    expect(head.filter((message) => message.content === "the question that overflows")).toHaveLength(1);
    expect(validateHistory(head)).toEqual([]);
  });
});
