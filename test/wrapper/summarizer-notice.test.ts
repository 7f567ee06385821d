/**
 * The summarizer compactions use is chosen once, at construction, and said: `summarizerChoice` and
 * `compactionHealth(...).summarizer` at any time, with the reason. OPENAI_API_KEY switching to the OpenAI summarizer
 * is never silent.
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import { CompactingSupervisor } from "../../src/index.js";

function graphOf() {
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state) => ({
      messages: [
        new AIMessage(
          `Answer ${state.messages.length}: parcel PX-${700 + state.messages.length} is at depot ${state.messages.length % 5}, cleared by customs on day ${state.messages.length}.`,
        ),
      ],
    }))
    .addEdge(START, "agent")
    .compile({ checkpointer: new MemorySaver() });
}

describe("the summarizer is chosen once and said", () => {
  it("offline by default: the same choice, with its reason, before and after many compactions", async () => {
    let compactions = 0;
    const supervisor = new CompactingSupervisor(graphOf(), {
      trigger: { tokens: 600 },
      background: false,
      env: {},
      onCompaction: (report) => void (report.status === "compacted" && compactions++),
    });
    const config = { configurable: { thread_id: "notice" } };
    expect(supervisor.compactionHealth("notice").summarizer).toMatchObject({ source: "offline", name: "extractive" });
    for (let turn = 0; turn < 30; turn++)
      await supervisor.invoke(
        { messages: [new HumanMessage(`Where is parcel PX-${700 + turn} and who cleared it?`)] },
        config,
      );
    expect(compactions).toBeGreaterThan(1);
    expect(supervisor.summarizerChoice.reason).toMatch(
      /extractive summarizer: no summarizer was given and `env` holds no OPENAI_API_KEY/,
    );
    expect(supervisor.compactionHealth("notice").summarizer).toEqual(supervisor.summarizerChoice);
  });

  it("OPENAI_API_KEY chooses the OpenAI summarizer and says so, with its model; a given summarizer is said as given", () => {
    const openai = new CompactingSupervisor(graphOf(), {
      trigger: { tokens: 600 },
      env: {
        OPENAI_API_KEY: "sk-test-not-a-key",
        SUMMARY_MODEL: "gpt-4.1-mini",
        OPENAI_BASE_URL: "http://127.0.0.1:9",
      },
    });
    expect(openai.summarizerChoice).toMatchObject({ source: "openai", model: "gpt-4.1-mini" });
    expect(openai.summarizerChoice.reason).toMatch(
      /over gpt-4\.1-mini: OPENAI_API_KEY is set \(server http:\/\/127\.0\.0\.1:9\)/,
    );
    expect(openai.summarizerChoice.reason).not.toContain("sk-test");
    const given = new CompactingSupervisor(graphOf(), {
      trigger: { tokens: 600 },
      env: { OPENAI_API_KEY: "sk-test-not-a-key" },
      summarizer: new ExtractiveSummarizer(),
    });
    expect(given.summarizerChoice).toMatchObject({ source: "given", name: "extractive" });
    expect(given.summarizerChoice.reason).toMatch(/passed by the application/);
  });
});
