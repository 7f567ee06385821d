/**
 * ExtractiveSummarizer's compactSentences (on by default): what a person or an agent said is kept without the thread's
 * grammar words (extractive/compact.ts), pinned on small hand-written threads (never on the evaluation data).
 */
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import { compactSentence, GRAMMAR_SHARE } from "../../src/summarizers/extractive/compact.js";
import { Vocabulary } from "../../src/summarizers/extractive/vocabulary.js";
import { wordsOf } from "../../src/messages/words.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";

const counter = new TokenCounter();
let sequence = 0;
function say(speaker: "Ana" | "Ben", text: string): BaseMessage {
  const fields = { id: `c${++sequence}`, name: speaker, content: text };
  return speaker === "Ana" ? new HumanMessage(fields) : new AIMessage(fields);
}

/** A vocabulary over `documents` texts (each one message). */
const vocabularyOf = (documents: string[], names: string[] = []) => new Vocabulary(documents.map(wordsOf), names);

/** Twenty messages in which "the", "a", "I", "was", "to", "not" and "don't" each recur. */
const THREAD = Array.from(
  { length: 20 },
  (_, index) =>
    `I was at the ${["market", "port", "gym", "library", "bakery"][index % 5]} ${index} and it was not a ${["rainy", "long", "slow", "busy"][index % 4]} day; I don't mind the walk to it.`,
);

describe("compactSentences", () => {
  it("leaves out the words the thread itself uses as grammar, and only those", () => {
    const vocabulary = vocabularyOf([...THREAD, "Gemma moved to Porto in March 2021 to open a ceramics studio."]);
    const compacted = compactSentence("I was at the harbour with Gemma and it was a windy day.", vocabulary);
    // "I", "was", "at", "the", "and", "it", "a", "day" are in a tenth of the documents or more; the rest are not.
    expect(compacted).toBe("harbour with Gemma windy.");
    expect(GRAMMAR_SHARE).toBe(0.1);
  });

  it("keeps numbers, identifiers, names written with a capital, negations, and words of unspaced scripts", () => {
    const documents = [
      ...THREAD,
      ...Array.from(
        { length: 10 },
        (_, index) => `the invoice INV-${index} was sent by the Moreau office, it is the 12 of the month`,
      ),
    ];
    const vocabulary = vocabularyOf(documents, ["ana"]);
    const compacted = compactSentence(
      "The invoice INV-7 was not sent by the Moreau office on the 12, I don't know why, Ana says 東京の店.",
      vocabulary,
    );
    for (const kept of ["INV-7", "not", "Moreau", "12", "don't", "Ana", "東京の店"]) expect(compacted).toContain(kept);
    expect(compacted).not.toMatch(/\bthe\b/i);
    expect(compacted).not.toMatch(/\bwas\b/);
    // A capital that only starts the sentence is no name: "The" goes like "the"; "invoice", in a third of the
    // documents, is this thread's grammar.
    expect(compacted.startsWith("INV-7 not")).toBe(true);
  });

  it("keeps a sentence whole when nothing but grammar would be left, and leaves a thread too small to tell alone", () => {
    const vocabulary = vocabularyOf(THREAD);
    expect(compactSentence("I was at it.", vocabulary)).toBe("I was at it.");
    const small = vocabularyOf(["the cat sat", "the dog ran"]);
    // Two documents: no word is in MIN_COMMON_DOCUMENTS of them, so none is grammar.
    expect(compactSentence("the cat sat", small)).toBe("the cat sat");
  });

  it("compacts what people said, never tool results nor a message of several lines, and holds more facts in the same budget", async () => {
    const facts = [
      "I was at the port 3 and it was the day the crane 7 broke, the repair was 4,300 euros.",
      "I was at the market 8 and it was the day Lucía opened her stall of olive oils from Jaén.",
      "I was at the gym 2 and it was the day the trainer moved the spin class to Thursdays at 7.",
      "I was at the library 5 and it was the day the archive of the Vidal family was opened to readers.",
      "I was at the bakery 9 and it was the day the oven 12 was replaced by a wood-fired one from Lyon.",
      "I was at the port 6 and it was the day the ferry to Ibiza was cancelled for the strike.",
    ];
    const messages = [
      ...THREAD.map((text, index) => say(index % 2 ? "Ben" : "Ana", text)),
      ...facts.map((text, index) => say(index % 2 ? "Ben" : "Ana", text)),
    ];
    const toolCall = new AIMessage({
      id: "call-1",
      name: "Ben",
      content: "",
      tool_calls: [{ id: "t1", name: "lookup", args: { query: "crane" } }],
    });
    const toolResult = new ToolMessage({
      id: "result-1",
      tool_call_id: "t1",
      name: "lookup",
      content: "The crane 7 was the one at the port 3 and the repair was 4,300 euros.",
    });
    const document = say("Ana", "Notes of the day:\n- the crane 7 was at the port 3\n- the repair was 4,300 euros");
    const all = [...messages, toolCall, toolResult, document];
    const budget = 130;
    const plain = await new ExtractiveSummarizer({ counter, compactSentences: false }).summarize({
      messages: all,
      tokenBudget: budget,
    });
    const compact = await new ExtractiveSummarizer({ counter }).summarize({ messages: all, tokenBudget: budget });
    expect(counter.countText(compact)).toBeLessThanOrEqual(budget);
    const held = (summary: string) =>
      ["4,300", "Jaén", "Thursdays", "Vidal", "Lyon", "Ibiza"].filter((fact) => summary.includes(fact)).length;
    expect(held(compact)).toBeGreaterThan(held(plain));
    // A person's sentence lost its grammar words; the tool's result and the document's lines kept theirs.
    const lines = compact.split("\n");
    expect(
      lines.filter(
        (line) => /^- (Ana|Ben): /.test(line) && /\b(was|the)\b/.test(line) && !/crane 7 was at|repair was/.test(line),
      ),
    ).toEqual([]);
    const toolLine = lines.find((line) => line.startsWith("- lookup result: "));
    if (toolLine) expect(toolLine).toContain("the repair was 4,300 euros");
    const documentLine = lines.find((line) => line.includes("crane 7 was at"));
    if (documentLine) expect(documentLine).toContain("the crane 7 was at the port 3");
  });

  it("is on by default; false keeps every sentence as written; a value that is not a boolean is refused", async () => {
    const messages = [
      ...THREAD.map((text) => say("Ana", text)),
      say("Ben", "I was at the port 3 and it was the day the crane 7 broke."),
    ];
    const written = await new ExtractiveSummarizer({ counter, compactSentences: false }).summarize({
      messages,
      tokenBudget: 400,
    });
    expect(written).toContain("I was at the port 3 and it was the day the crane 7 broke.");
    const compacted = await new ExtractiveSummarizer({ counter }).summarize({ messages, tokenBudget: 400 });
    expect(compacted).toContain("crane 7 broke");
    expect(compacted).not.toContain("I was at the port 3 and it was the day the crane 7 broke.");
    expect(() => new ExtractiveSummarizer({ compactSentences: "yes" as unknown as boolean })).toThrow(
      /compactSentences/,
    );
  });
});
