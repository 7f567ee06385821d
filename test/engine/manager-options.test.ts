import { MemorySaver } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { LlmSummarizer } from "../../src/summarizers/llm.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";

describe("HistoryManager options", () => {
  it("summaryModel is the chat model an LlmSummarizer writes with", () => {
    const chat = new ScriptedChatModel({ reply: () => ({ content: "## Facts\n- none" }) });
    const named = new HistoryManager({ checkpointer: new MemorySaver(), summaryModel: chat });
    expect(named.summarizer).toBeInstanceOf(LlmSummarizer);
  });
});
