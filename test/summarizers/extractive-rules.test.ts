/**
 * Each rule of the ExtractiveSummarizer, pinned on small hand-written dialogues (never on the evaluation data).
 */
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import { parseSummary } from "../../src/summarizers/extractive/layout.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";

const counter = new TokenCounter();
const summarizer = new ExtractiveSummarizer({ counter });

let sequence = 0;
function say(speaker: "Ana" | "Ben", text: string, day?: string): BaseMessage {
  const fields = {
    id: `m${++sequence}`,
    name: speaker,
    content: text,
    additional_kwargs: day ? { timestamp: `${day}T10:00:00Z` } : {},
  };
  return speaker === "Ana" ? new HumanMessage(fields) : new AIMessage(fields);
}

/** The "- speaker: text" lines of a summary, without header and day headings. */
function lines(summary: string): string[] {
  return summary.split("\n").filter((line) => line.startsWith("- "));
}

/**
 * A chat over several days, as people write them: each day opens with greetings and closes with thanks and
 * goodbyes (small talk recurs, as in any real thread), and a few facts are said once in between.
 */
function chat(language: {
  smallTalk: Array<["Ana" | "Ben", string]>;
  facts: Array<["Ana" | "Ben", string]>;
}): BaseMessage[] {
  const messages: BaseMessage[] = [];
  const days = 4;
  for (let day = 0; day < days; day++) {
    const date = `2024-03-${String(10 + day * 3).padStart(2, "0")}`;
    const talk = language.smallTalk.map(([speaker, text], index) =>
      say(speaker, text.replace("{n}", "") + (index % 2 && day % 2 ? " :)" : ""), date),
    );
    const facts = language.facts
      .filter((_, index) => index % days === day)
      .map(([speaker, text]) => say(speaker, text, date));
    messages.push(...talk.slice(0, 3), ...facts, ...talk.slice(3));
  }
  return messages;
}

const ENGLISH = {
  smallTalk: [
    ["Ana", "Hey Ben! Good to see you!"],
    ["Ben", "Hi Ana! Good to see you too. How have you been?"],
    ["Ana", "Good, thanks! How are you?"],
    ["Ben", "That sounds great!"],
    ["Ana", "Thanks so much, that means a lot!"],
    ["Ben", "Totally agree. Talk soon!"],
    ["Ana", "Bye, talk soon!"],
  ] as Array<["Ana" | "Ben", string]>,
  facts: [
    ["Ana", "I moved to Porto in March to work at the oceanarium as a marine biologist."],
    ["Ben", "My sister Clara adopted a greyhound called Biscuit last weekend."],
    ["Ana", "The grant for the seahorse project came through: 48,000 euros for two years."],
    ["Ben", "I started night classes in Portuguese at the university on Tuesdays."],
  ] as Array<["Ana" | "Ben", string]>,
};
const FACTS = ENGLISH.facts.map(([speaker, text]) => say(speaker, text));

describe("ExtractiveSummarizer rules", () => {
  it("drops greetings, thanks, agreement and questions with no content, and keeps the facts", async () => {
    const summary = await summarizer.summarize({ messages: chat(ENGLISH), tokenBudget: 2_000 });
    const kept = lines(summary).join("\n");
    for (const fact of ["Porto", "Biscuit", "48,000 euros", "night classes"]) expect(kept).toContain(fact);
    for (const filler of [
      "Good to see you",
      "Thanks so much",
      "sounds great",
      "Totally agree",
      "How have you been",
      "How are you",
      "talk soon",
    ]) {
      expect(kept).not.toContain(filler);
    }
    expect(lines(summary)).toHaveLength(4);
  });

  it("values what is distinctive in the thread, not capital letters: under a tight budget the facts win", async () => {
    const loud = [
      say("Ana", "Wow Ben, Great Job Today With Everything!"),
      say("Ben", "Really Great To Hear From You Again Ana!"),
      say("Ana", "Great to hear, great to see, great day today!"),
      say("Ben", "It must have been great, we should plan something great."),
    ];
    const messages = [
      ...loud,
      FACTS[1]!,
      ...loud.map((message, index) => say(index % 2 ? "Ben" : "Ana", String(message.content))),
    ];
    // Room for the header and one line: the fact is the line.
    const summary = await summarizer.summarize({ messages, tokenBudget: 30 });
    expect(lines(summary)).toHaveLength(1);
    expect(summary).toContain("Biscuit");
  });

  it("keeps a question's content but prefers the statement that answers it", async () => {
    const messages = [
      say("Ana", "Which hospital did your brother Tomas transfer to after the accident in Lyon?"),
      say("Ben", "Tomas transferred to the Hopital Edouard Herriot after the accident in Lyon."),
    ];
    const summary = await summarizer.summarize({ messages, tokenBudget: 40 });
    expect(lines(summary)).toEqual([
      "- Ben: Tomas transferred to the Hopital Edouard Herriot after the accident in Lyon.",
    ]);
  });

  it("merges near-duplicates, keeping one of them", async () => {
    const messages = [
      say("Ana", "The kiln firing for the ceramics class is on Thursday at the community studio."),
      say("Ben", "So the kiln firing for the ceramics class is on Thursday at the community studio!"),
      FACTS[0]!,
    ];
    const summary = await summarizer.summarize({ messages, tokenBudget: 2_000 });
    expect(lines(summary).filter((line) => line.includes("kiln firing"))).toHaveLength(1);
    expect(summary).toContain("Porto");
  });

  it("keeps two records that differ only in their figures: neither is a near-duplicate of the other", async () => {
    const messages = [
      say(
        "Ana",
        "Decision ADR-494 for workstream W3: we chose Frankfurt over Dublin for the region because of data-residency rules.",
      ),
      say(
        "Ben",
        "Decision ADR-444 for workstream W13: we chose Frankfurt over Dublin for the region because of data-residency rules.",
      ),
      say("Ana", "The shipment was 1,200 kilos of olive oil from Jaén, paid in March."),
      say("Ben", "The shipment was 1,800 kilos of olive oil from Jaén, paid in March."),
    ];
    const summary = await summarizer.summarize({ messages, tokenBudget: 2_000 });
    for (const figure of ["ADR-494", "ADR-444", "1,200", "1,800"]) expect(summary).toContain(figure);
  });

  it("puts every kept line under the date of its message when the thread spans several days", async () => {
    const messages = [
      say("Ana", "I moved to Porto in March to work at the oceanarium as a marine biologist.", "2023-05-08"),
      say("Ben", "My sister Clara adopted a greyhound called Biscuit last weekend.", "2023-05-08"),
      say("Ana", "The grant for the seahorse project came through: 48,000 euros for two years.", "2023-06-21"),
    ];
    const summary = await summarizer.summarize({ messages, tokenBudget: 2_000 });
    expect(summary.split("\n").slice(1)).toEqual([
      "8 May 2023:",
      "- Ana: I moved to Porto in March to work at the oceanarium as a marine biologist.",
      "- Ben: My sister Clara adopted a greyhound called Biscuit last weekend.",
      "21 June 2023:",
      "- Ana: The grant for the seahorse project came through: 48,000 euros for two years.",
    ]);
    // Folding it into the next summary keeps each line's date.
    const next = await summarizer.summarize({
      previousSummary: summary,
      messages: [say("Ben", "Clara moved the greyhound rescue to a farm near Braga.", "2023-07-02")],
      tokenBudget: 2_000,
    });
    const parsed = parseSummary(next).lines;
    expect(parsed.map((line) => line.date?.toISOString().slice(0, 10))).toEqual([
      "2023-05-08",
      "2023-05-08",
      "2023-06-21",
      "2023-07-02",
    ]);
  });

  it("states a one-day thread's date once, in the header, and undated threads have no dates", async () => {
    const oneDay = await summarizer.summarize({
      messages: FACTS.map((message) => say(message.name as "Ana", String(message.content), "2024-02-29")),
      tokenBudget: 2_000,
    });
    expect(oneDay.split("\n")[0]).toBe("Covers 4 messages, 29 February 2024; agents: Ben.");
    expect(oneDay).not.toMatch(/^\d+ \w+ \d{4}:$/m);
    const undated = await summarizer.summarize({ messages: FACTS, tokenBudget: 2_000 });
    expect(undated.split("\n")[0]).toBe("Covers 4 messages; agents: Ben.");
  });

  it("states the whole coverage in the header, the previous summary's included", async () => {
    const first = await summarizer.summarize({
      messages: [say("Ana", "Kickoff of the lighthouse restoration in Ericeira.", "2023-01-10")],
      tokenBudget: 500,
    });
    expect(first.split("\n")[0]).toBe("Covers 1 messages, 10 January 2023.");
    const messages = [FACTS[0]!, FACTS[1]!].map((message) =>
      say(message.name as "Ana", String(message.content), "2023-03-02"),
    );
    // Known from the provenance...
    const told = await summarizer.summarize({
      previousSummary: first,
      previousCoveredMessages: 300,
      messages,
      tokenBudget: 500,
    });
    expect(told.split("\n")[0]).toBe("Covers 302 messages, 10 January 2023 – 2 March 2023; agents: Ben.");
    // ...or read back from the previous header.
    const read = await summarizer.summarize({ previousSummary: first, messages, tokenBudget: 500 });
    expect(read.split("\n")[0]).toBe("Covers 3 messages, 10 January 2023 – 2 March 2023; agents: Ben.");
  });

  it("gives the new segment a fair share of the budget against lines carried from the previous summary", async () => {
    // A previous summary standing for 100 messages, full of dense old facts...
    const old = Array.from(
      { length: 40 },
      (_, index) =>
        `- Ana: Invoice INV-${1000 + index} for the harbour crane ${index} was paid on day ${index + 1} by Rui ${index}.`,
    );
    const previousSummary = ["Covers 100 messages.", ...old].join("\n");
    // ...and a new segment of 100 messages, half of them facts of the same density.
    const fresh = Array.from({ length: 100 }, (_, index) =>
      index % 2 === 0
        ? say(
            "Ben",
            `Invoice INV-${5000 + index} for the river barge ${index} was paid on day ${index + 2} by Joana ${index}.`,
          )
        : say("Ana", "Ok, noted, thanks."),
    );
    const summary = await summarizer.summarize({
      previousSummary,
      previousCoveredMessages: 100,
      messages: fresh,
      tokenBudget: 600,
    });
    const kept = lines(summary);
    const newLines = kept.filter((line) => line.includes("INV-5")).length;
    const oldLines = kept.filter((line) => line.includes("INV-1")).length;
    // Each side stands for 100 messages: neither may starve the other.
    expect(newLines).toBeGreaterThan(0);
    expect(oldLines).toBeGreaterThan(0);
    expect(Math.abs(newLines - oldLines)).toBeLessThanOrEqual(Math.ceil(0.25 * (newLines + oldLines)));
    // A small new segment takes a small share: old facts are not pushed out by it.
    const small = await summarizer.summarize({
      previousSummary,
      previousCoveredMessages: 100,
      messages: fresh.slice(0, 4),
      tokenBudget: 600,
    });
    expect(lines(small).filter((line) => line.includes("INV-1")).length).toBeGreaterThan(lines(small).length * 0.8);
  });

  it("with recencyWeight 2, counts each new message twice against the covered ones; a weight below 1 is refused", async () => {
    const old = Array.from(
      { length: 40 },
      (_, index) =>
        `- Ana: Invoice INV-${1000 + index} for the harbour crane ${index} was paid on day ${index + 1} by Rui ${index}.`,
    );
    const previousSummary = ["Covers 100 messages.", ...old].join("\n");
    const fresh = Array.from({ length: 50 }, (_, index) =>
      say(
        "Ben",
        `Invoice INV-${5000 + index} for the river barge ${index} was paid on day ${index + 2} by Joana ${index}.`,
      ),
    );
    const input = { previousSummary, previousCoveredMessages: 100, messages: fresh, tokenBudget: 600 };
    const share = (summary: string) =>
      lines(summary).filter((line) => line.includes("INV-5")).length / lines(summary).length;
    // Sentences as written, so that old and new lines cost the same and their counts measure the budget's split.
    const fair = share(await new ExtractiveSummarizer({ counter, compactSentences: false }).summarize(input));
    const recent = share(
      await new ExtractiveSummarizer({ counter, recencyWeight: 2, compactSentences: false }).summarize(input),
    );
    // 50 new against 100 covered: a third of the lines fairly, half of them at weight 2.
    expect(fair).toBeGreaterThan(0.25);
    expect(fair).toBeLessThan(0.42);
    expect(recent).toBeGreaterThan(0.42);
    expect(recent).toBeLessThan(0.58);
    for (const bad of [0.5, Number.NaN, "2"]) {
      expect(() => new ExtractiveSummarizer({ recencyWeight: bad as number })).toThrow(/recencyWeight/);
    }
  });

  it("keeps the distinctive lines of German and Spanish dialogue within budget, and drops their small talk", async () => {
    const german = chat({
      smallTalk: [
        ["Ana", "Hallo Ben! Schön, dich zu sehen!"],
        ["Ben", "Hallo Ana! Schön, dich zu sehen. Wie geht es dir?"],
        ["Ana", "Gut, danke! Und dir?"],
        ["Ben", "Super, das freut mich!"],
        ["Ana", "Danke dir, das ist lieb!"],
        ["Ben", "Genau. Bis bald!"],
        ["Ana", "Tschüss, bis bald!"],
      ],
      facts: [
        ["Ana", "Ich bin im März nach Leipzig gezogen und arbeite jetzt in der Stadtbibliothek."],
        ["Ben", "Meine Schwester Greta hat im Juni ihre Bäckerei in Dresden eröffnet."],
        ["Ana", "Der Umzugswagen hat 380 Euro gekostet, die Kaution für die Wohnung 1.200 Euro."],
        ["Ben", "Ich lerne seit Januar Cello bei einer Lehrerin aus Prag."],
      ],
    });
    const summary = await summarizer.summarize({ messages: german, tokenBudget: 150 });
    expect(counter.countText(summary)).toBeLessThanOrEqual(150);
    // Grammar words of the thread ("in", "de") may be left out (compactSentences); the facts' words stay.
    for (const fact of ["Leipzig", "Bäckerei", "Dresden", "380 Euro", "Cello"]) expect(summary).toContain(fact);
    for (const filler of ["Schön, dich zu sehen", "Wie geht es dir", "Bis bald", "das freut mich"])
      expect(summary).not.toContain(filler);
    const spanish = chat({
      smallTalk: [
        ["Ana", "¡Hola Ben! ¿Qué tal?"],
        ["Ben", "¡Hola Ana! Muy bien, ¿y tú?"],
        ["Ana", "Muy bien, gracias."],
        ["Ben", "¡Qué bien, me alegro!"],
        ["Ana", "¡Muchas gracias, de verdad!"],
        ["Ben", "Claro que sí. ¡Hasta pronto!"],
        ["Ana", "¡Hasta pronto!"],
      ],
      facts: [
        ["Ana", "Mi hermano Julián empezó a trabajar en el puerto de Valencia como ingeniero naval."],
        ["Ben", "Compré una bicicleta de segunda mano por 240 euros en Zaragoza."],
        ["Ana", "La boda de mi prima Lucía será el 14 de septiembre en Sevilla."],
        ["Ben", "Me apunté a un curso de cerámica los jueves en el barrio de Gràcia."],
      ],
    });
    const summaryEs = await summarizer.summarize({ messages: spanish, tokenBudget: 150 });
    expect(counter.countText(summaryEs)).toBeLessThanOrEqual(150);
    for (const fact of ["puerto", "Valencia", "240 euros", "Sevilla", "cerámica"]) expect(summaryEs).toContain(fact);
    for (const filler of ["Qué tal", "me alegro", "Hasta pronto", "Muchas gracias"])
      expect(summaryEs).not.toContain(filler);
  });

  it("keeps the distinctive lines of Japanese and Chinese dialogue within budget", async () => {
    const japanese = [
      say("Ana", "こんにちは！元気？"),
      say("Ben", "元気だよ、ありがとう！"),
      say("Ana", "三月に札幌へ引っ越して、水族館で海洋生物学者として働き始めました。"),
      say("Ben", "すごいね！"),
      say("Ben", "妹の美咲は先週、横浜でパン屋を開店しました。"),
    ];
    const summary = await summarizer.summarize({ messages: japanese, tokenBudget: 100 });
    expect(counter.countText(summary)).toBeLessThanOrEqual(100);
    expect(summary).toContain("札幌");
    expect(summary).toContain("横浜でパン屋");
    expect(summary).not.toContain("すごいね");
    const chinese = [
      say("Ana", "你好！最近怎么样？"),
      say("Ben", "挺好的，谢谢！"),
      say("Ana", "我三月搬到了成都，在大熊猫研究基地当兽医。"),
      say("Ben", "太棒了！"),
    ];
    const summaryZh = await summarizer.summarize({ messages: chinese, tokenBudget: 60 });
    expect(counter.countText(summaryZh)).toBeLessThanOrEqual(60);
    expect(summaryZh).toContain("大熊猫研究基地");
    expect(summaryZh).not.toContain("太棒了");
  });
});
