/**
 * compactionMessagesReducer: LangGraph's messages reducer, plus a compaction that comes out of a subgraph (the
 * summary's provenance takes what it covers out of the parent's head).
 */
import { AIMessage, HumanMessage, RemoveMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { messagesStateReducer, REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { createSummaryMessage } from "../../src/messages/summary-message.js";
import { compactionMessagesReducer } from "../../src/runtimes/in-graph/messages-reducer.js";

const human = (id: string) => new HumanMessage({ id, content: `question ${id}` });
const ai = (id: string) => new AIMessage({ id, content: `answer ${id}` });
const ids = (messages: BaseMessage[]) => messages.map((message) => message.id);

function summary(covered: string[], previous: string | null = null): BaseMessage {
  return createSummaryMessage(`what ${covered.join(", ")} said`, {
    replacedCheckpointId: null,
    coveredMessages: covered.length,
    coveredTokens: 10 * covered.length,
    firstCoveredId: covered[0] ?? null,
    lastCoveredId: covered.at(-1) ?? null,
    coveredIds: covered,
    previousSummaryId: previous,
    summarizer: "test",
    model: null,
  });
}

describe("compactionMessagesReducer", () => {
  it("is LangGraph's reducer for every update without a new summary", () => {
    const left = [human("h1"), ai("a1")];
    const updates = [
      [human("h2")],
      [new AIMessage({ id: "a1", content: "edited" })],
      [new RemoveMessage({ id: "h1" })],
    ];
    for (const right of updates)
      expect(compactionMessagesReducer(left, right)).toEqual(messagesStateReducer(left, right));
  });

  it("leaves the in-graph step's own update, a remove-all and its replacement, to LangGraph's reducer", () => {
    const left = [human("h1"), ai("a1"), human("h2"), ai("a2")];
    const compacted = summary(["h1", "a1"]);
    const right = [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), compacted, human("h2"), ai("a2")];
    expect(ids(compactionMessagesReducer(left, right))).toEqual([compacted.id, "h2", "a2"]);
  });

  it("a subgraph's compacted messages, merged into its parent's head: the covered ones leave, the summary takes their place", () => {
    const left = [
      new SystemMessage({ id: "sys", content: "team" }),
      human("h1"),
      ai("a1"),
      human("h2"),
      ai("a2"),
      human("h3"),
    ];
    const compacted = summary(["h1", "a1", "h2"]);
    // What the subgraph returns: its whole final state, after its own remove-all.
    const right = [new SystemMessage({ id: "sys", content: "team" }), compacted, ai("a2"), human("h3"), ai("a3")];
    expect(ids(compactionMessagesReducer(left, right))).toEqual(["sys", compacted.id, "a2", "h3", "a3"]);
    // LangGraph's own reducer keeps everything, and appends the summary after it.
    expect(ids(messagesStateReducer(left, right))).toEqual(["sys", "h1", "a1", "h2", "a2", "h3", compacted.id, "a3"]);
  });

  it("a later compaction folds the previous summary: the head holds one", () => {
    const first = summary(["h1", "a1"]);
    const left = [first, human("h2"), ai("a2"), human("h3"), ai("a3")];
    const second = summary(["h2", "a2"], first.id!);
    const merged = compactionMessagesReducer(left, [second, human("h3"), ai("a3"), human("h4")]);
    expect(ids(merged)).toEqual([second.id, "h3", "a3", "h4"]);
  });

  it("a summary the head already holds changes nothing", () => {
    const first = summary(["h1"]);
    const left = [first, ai("a1")];
    expect(ids(compactionMessagesReducer(left, [first, ai("a1"), human("h2")]))).toEqual([first.id, "a1", "h2"]);
  });
});
