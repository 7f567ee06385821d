/**
 * The demo team: a supervisor over a researcher and a coder (createSupervisor over two createReactAgent
 * sub-agents), each with a tool. Models are scripted (offline, deterministic) unless real ones are passed.
 */
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { createSupervisor } from "@langchain/langgraph-supervisor";
import { createHistorySearchTool } from "../../src/recall/tool.js";
import { z } from "zod";
import { ScriptedChatModel, type ReplyPolicy } from "./fakes/scripted-chat-model.js";

export const searchDocs = tool(
  async ({ query }: { query: string }) =>
    [
      `Results for "${query}":`,
      `- Billing handbook §4.2: invoices are rounded half-even to 2 decimals; refunds over 500 EUR need approval from the finance lead.`,
      `- Incident INC-2291 (2026-02-17): duplicate charges for 37 customers, root cause a retry without idempotency key.`,
      `- Vendor contract: Stripe fees 1.4% + 0.25 EUR for EU cards; renewal due 2026-09-30.`,
    ].join("\n"),
  {
    name: "search_docs",
    description: "Search the billing team's documents.",
    schema: z.object({ query: z.string().describe("What to search for") }),
  },
);

export const runTests = tool(
  async ({ target }: { target: string }) =>
    [
      `$ npm test -- ${target}`,
      ...Array.from(
        { length: 12 },
        (_, index) =>
          `${index === 7 ? "FAIL" : "PASS"} test/billing/${target.replace(/\W+/g, "-")}-${index}.test.ts (${40 + index * 13} ms)`,
      ),
      `Tests: 1 failed, 11 passed, 12 total — failing: rounding of 0.005 EUR amounts (expected 0.01, got 0.00)`,
    ].join("\n"),
  {
    name: "run_tests",
    description: "Run the billing service's tests.",
    schema: z.object({ target: z.string().describe("Test file or pattern") }),
  },
);

function lastHuman(messages: BaseMessage[]): string {
  const human = [...messages].reverse().find((message) => message.getType() === "human");
  return human ? String(typeof human.content === "string" ? human.content : human.text) : "";
}

function lastAgentAnswer(messages: BaseMessage[]): string {
  const answer = [...messages]
    .reverse()
    .find(
      (message) =>
        AIMessage.isInstance(message) &&
        typeof message.content === "string" &&
        message.content.length > 0 &&
        message.name !== "supervisor" &&
        (message.tool_calls?.length ?? 0) === 0,
    );
  return answer ? String(answer.content) : "";
}

/** Supervisor: hand coding questions to the coder, the rest to the researcher; answer once an agent is back. */
export const supervisorPolicy: ReplyPolicy = (messages) => {
  const last = messages.at(-1)!;
  if (last.getType() === "human") {
    const text = lastHuman(messages);
    const agent = /code|test|fix|bug|refactor|rounding/i.test(text) ? "coder" : "researcher";
    return { content: `Routing this to the ${agent}.`, toolCalls: [{ name: `transfer_to_${agent}`, args: {} }] };
  }
  return { content: `Here is what the team found: ${lastAgentAnswer(messages).slice(0, 240)}` };
};

/** A sub-agent: call its tool once for the latest request, then answer from the tool's output. */
export function agentPolicy(toolName: string, argument: string): ReplyPolicy {
  return (messages) => {
    const last = messages.at(-1)!;
    if (ToolMessage.isInstance(last) && last.name === toolName) {
      const lines = String(last.content)
        .split("\n")
        .filter((line) => /\d/.test(line))
        .slice(0, 3);
      return { content: `From ${toolName}: ${lines.join(" ")}` };
    }
    return {
      content: `Let me check with ${toolName}.`,
      toolCalls: [{ name: toolName, args: { [argument]: lastHuman(messages).slice(0, 80) } }],
    };
  };
}

export interface TeamModels {
  supervisor: BaseChatModel;
  researcher: BaseChatModel;
  coder: BaseChatModel;
}

export function scriptedModels(tokenDelayMs = 0): {
  supervisor: ScriptedChatModel;
  researcher: ScriptedChatModel;
  coder: ScriptedChatModel;
  all: ScriptedChatModel[];
} {
  const supervisor = new ScriptedChatModel({ reply: supervisorPolicy, modelName: "scripted-supervisor", tokenDelayMs });
  const researcher = new ScriptedChatModel({
    reply: agentPolicy("search_docs", "query"),
    modelName: "scripted-researcher",
    tokenDelayMs,
  });
  const coder = new ScriptedChatModel({
    reply: agentPolicy("run_tests", "target"),
    modelName: "scripted-coder",
    tokenDelayMs,
  });
  return { supervisor, researcher, coder, all: [supervisor, researcher, coder] };
}

export function createTeam(checkpointer: BaseCheckpointSaver, models: TeamModels = scriptedModels()) {
  const researcher = createReactAgent({
    llm: models.researcher,
    tools: [searchDocs],
    name: "researcher",
    prompt: "You research the billing team's documents.",
  });
  const coder = createReactAgent({
    llm: models.coder,
    tools: [runTests],
    name: "coder",
    prompt: "You fix and test the billing service.",
  });
  return createSupervisor({
    agents: [researcher, coder],
    llm: models.supervisor,
    // The summary of a compacted thread tells the supervisor it can search the messages compaction took out.
    // (A team compiled without a checkpointer has no history to search.)
    tools: checkpointer ? [createHistorySearchTool({ checkpointer })] : [],
    prompt:
      "You supervise a researcher and a coder for the billing team. Route each request to one of them; search_history finds what was said before the summary.",
  }).compile({ checkpointer });
}
