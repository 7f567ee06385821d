import { MemorySaver } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { HistoryManager } from "../../src/engine/history-manager.js";
import { LlmSummarizer } from "../../src/summarizers/llm.js";
import { ScriptedChatModel } from "../support/fakes/scripted-chat-model.js";

describe("HistoryManager options", () => {
  it("model, a chat model, is the one an LlmSummarizer writes with", () => {
    const chat = new ScriptedChatModel({ reply: () => ({ content: "## Facts\n- none" }) });
    const named = new HistoryManager({ checkpointer: new MemorySaver(), model: chat });
    expect(named.summarizer).toBeInstanceOf(LlmSummarizer);
  });
});
