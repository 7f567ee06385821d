/**
 * An agent gets back what compaction took out of its context: a createSupervisor team, wrapped by
 * CompactingSupervisor, whose supervisor has the search_history tool. After compactions, asked about an early fact,
 * its (scripted) model calls the tool and answers with the fact word for word, from a message no longer in the head.
 */
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { createSupervisor } from "@langchain/langgraph-supervisor";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getSummaryProvenance } from "../../src/messages/summary-message.js";
import { createHistorySearchTool, HISTORY_SEARCH_TOOL } from "../../src/recall/tool.js";
import { CompactingSupervisor } from "../../src/runtimes/wrapper/compacting-supervisor.js";
import type { CompactionReport } from "../../src/engine/report.js";
import { ScriptedChatModel, type ReplyPolicy } from "../support/fakes/scripted-chat-model.js";
import { lookupTool } from "../support/agents.js";

const fact = (site: number) => `the locker code for site Lisbon-${site} is ${4400 + site}-${site}`;

/** Searches the history when asked to recall something; answers with what the search returned. */
const supervisorPolicy: ReplyPolicy = (messages) => {
  const last = messages.at(-1)!;
  if (ToolMessage.isInstance(last) && last.name === HISTORY_SEARCH_TOOL)
    return { content: `From our earlier messages: ${String(last.content)}` };
  const text = String(last.content);
  const recall = /^recall: (.+)$/.exec(text);
  if (HumanMessage.isInstance(last) && recall)
    return { toolCalls: [{ name: HISTORY_SEARCH_TOOL, args: { query: recall[1] } }] };
  return { content: `Noted (${text.length} characters).` };
};

describe("an agent searches what compaction took out of its context", () => {
  let dir: string;
  let saver: SqliteSaver;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "compaction-agent-search-"));
    saver = SqliteSaver.fromConnString(join(dir, "team.sqlite"));
  });
  afterEach(() => {
    saver.db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("gets an early fact back verbatim through search_history after compaction", async () => {
    const researcher = createReactAgent({
      llm: new ScriptedChatModel({ reply: () => ({ content: "Nothing to research." }) }),
      tools: [lookupTool],
      name: "researcher",
    });
    const team = createSupervisor({
      agents: [researcher],
      llm: new ScriptedChatModel({ reply: supervisorPolicy, modelName: "scripted-supervisor" }),
      tools: [createHistorySearchTool({ checkpointer: saver })],
      prompt: "You supervise a researcher. Use search_history for anything said before the summary.",
    }).compile({ checkpointer: saver });
    const reports: CompactionReport[] = [];
    const supervisor = new CompactingSupervisor(team, {
      trigger: { tokens: 1_200 },
      background: false,
      recall: { announce: true },
      onCompaction: (report) => void (report.status === "compacted" && reports.push(report)),
    });
    const config = { configurable: { thread_id: "ops" } };
    for (let site = 1; site <= 30; site++) {
      await supervisor.invoke(
        {
          messages: [
            new HumanMessage({
              id: `note-${site}`,
              content: `Note for the ops log: ${fact(site)}, written down by Ana Souza after the audit.`,
            }),
          ],
        },
        config,
      );
    }
    expect(reports.filter((report) => report.status === "compacted").length).toBeGreaterThan(0);
    const head = (await saver.getTuple(config))!.checkpoint.channel_values as { messages: BaseMessage[] };
    expect(head.messages.some((message) => message.id === "note-3")).toBe(false);
    const summary = head.messages.find((message) => getSummaryProvenance(message));
    expect(String(summary?.content)).toContain(HISTORY_SEARCH_TOOL);

    const result = await supervisor.invoke(
      { messages: [new HumanMessage({ id: "ask", content: "recall: locker code Lisbon-3" })] },
      config,
    );
    const messages = result.messages as BaseMessage[];
    const toolResult = messages.find(
      (message) => ToolMessage.isInstance(message) && message.name === HISTORY_SEARCH_TOOL,
    );
    expect(String(toolResult?.content)).toContain(fact(3));
    expect(String(messages.at(-1)!.content)).toContain(fact(3));
    // The fact came from the search, not from the context: its message is still out of the head.
    const after = (await saver.getTuple(config))!.checkpoint.channel_values as { messages: BaseMessage[] };
    expect(after.messages.some((message) => message.id === "note-3")).toBe(false);
  });
});
