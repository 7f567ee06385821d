/**
 * Candidates: the sentences a summary may keep, each with who said it, when, and how much it says.
 *
 * Rules (each one tested in test/summarizers/extractive-rules.test.ts):
 * - Value is what is distinctive in this thread: the summed weight of the sentence's distinct content words
 *   (vocabulary.ts), not its capital letters, its length or its modal verbs.
 * - Filler is dropped: a sentence with fewer than two content words and no number or identifier carries no fact
 *   ("Hey Mel!", "Thanks so much!", "That sounds great", "How have you been?"). Words of unspaced scripts count
 *   by their share (words.ts: wordShare).
 * - A question states no fact (its answer does): it keeps half its value.
 * - Records that share a template with many siblings in one message (JSON rows, log lines) are each worth less, so a
 *   one-off statement among them stands out.
 * - Sentences of one message belong to one line, so a kept fact stays with the rest of what was said with it.
 * - What a person or an agent said in one line is kept without the thread's grammar words, when `compact` (compact.ts);
 *   tool results, documents and carried lines as written.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { toolCallsOf } from "../../messages/tool-calls.js";
import { messageDate } from "../../messages/date.js";
import { contentText } from "../../messages/content.js";
import { speakerLabel, type SummaryLine } from "./layout.js";
import { drain } from "../../slices.js";
import { Vocabulary } from "./vocabulary.js";
import { compactSentence } from "./compact.js";
import { clipAtWord, isFigure, splitSentences, wordShare, wordsOf } from "../../messages/words.js";

export interface Candidate {
  text: string;
  /** Sentences with the same line number are rendered as one line. */
  line: number;
  /** Chronological position. */
  order: number;
  speaker: string;
  date?: Date;
  fromPrevious: boolean;
  /**
   * A sentence of what a person or an agent said in one line of text (a user or AI message), not of a tool's result,
   * a message of several lines or a carried line.
   */
  utterance: boolean;
  /** Distinct content words. */
  content: Set<string>;
  value: number;
  filler: boolean;
}

interface Piece {
  text: string;
  line: number;
  speaker: string;
  date?: Date;
  fromPrevious: boolean;
  utterance: boolean;
  words: string[];
  siblings: number;
  question: boolean;
}

/** The template of a record: quoted strings, identifiers and digits abstracted, so sibling records share one shape. */
function shapeOf(text: string): string {
  return text
    .replace(/"[^"]*"/g, "s")
    .replace(/\b[A-Za-z]+[_-][A-Za-z0-9_-]*\d[A-Za-z0-9_-]*\b/g, "i")
    .replace(/\d+(?:[.,:/-]\d+)*/g, "0")
    .replace(/\s+/g, " ")
    .slice(0, 48);
}

const QUESTION = /[?？]\s*["')\]]*$|^¿/u;

function messagePieces(message: BaseMessage, line: number, maxLength: number): Piece[] {
  const speaker = speakerLabel(message);
  const date = messageDate(message);
  // Written as several lines (a list, a report, a summary handed back in), a message is a document: its lines stand
  // alone rather than as one utterance's core (cores.ts).
  const utterance =
    (message.getType() === "human" || message.getType() === "ai") && !contentText(message).trim().includes("\n");
  const pieces: Piece[] = [];
  for (const call of toolCallsOf(message)) {
    if (call.name.startsWith("transfer_")) continue;
    const args = JSON.stringify((call as { args?: unknown }).args ?? {});
    pieces.push({
      text: clipAtWord(`called ${call.name}(${args})`, maxLength),
      line,
      speaker,
      date,
      fromPrevious: false,
      utterance,
      words: wordsOf(args),
      siblings: 1,
      question: false,
    });
  }
  const sentences = splitSentences(contentText(message)).filter(
    (sentence) => !/^Successfully transferred/.test(sentence),
  );
  const shapes = sentences.map(shapeOf);
  const siblings = new Map<string, number>();
  for (const shape of shapes) siblings.set(shape, (siblings.get(shape) ?? 0) + 1);
  sentences.forEach((sentence, index) => {
    pieces.push({
      text: clipAtWord(sentence, maxLength),
      line,
      speaker,
      date,
      fromPrevious: false,
      utterance,
      words: wordsOf(sentence),
      siblings: siblings.get(shapes[index]!)!,
      question: QUESTION.test(sentence),
    });
  });
  return pieces;
}

function linePieces(line: SummaryLine, index: number): Piece {
  return {
    text: line.text,
    line: index,
    speaker: line.speaker ?? "",
    date: line.date,
    fromPrevious: true,
    utterance: false,
    words: wordsOf(line.text),
    siblings: 1,
    question: false,
  };
}

/**
 * Every sentence of `messages` and every line of the previous summary, scored against the thread's vocabulary.
 * Lines of the previous summary come first (they are older), then the messages, in order.
 */
export function buildCandidates(
  previous: readonly SummaryLine[],
  messages: readonly BaseMessage[],
  maxLength: number,
  compact = false,
): Candidate[] {
  return drain(candidateSteps(previous, messages, maxLength, compact));
}

/** `buildCandidates` one message and one sentence at a time (see slices.ts). */
export function* candidateSteps(
  previous: readonly SummaryLine[],
  messages: readonly BaseMessage[],
  maxLength: number,
  compact = false,
): Generator<void, Candidate[]> {
  const pieces: Piece[] = previous.map(linePieces);
  const documents: string[][] = previous.map((line) => wordsOf(line.text));
  for (const [index, message] of messages.entries()) {
    const own = messagePieces(message, previous.length + index, maxLength);
    pieces.push(...own);
    documents.push(own.flatMap((piece) => piece.words));
    yield;
  }
  const names = new Set<string>();
  for (const message of messages) if (message.name) for (const word of wordsOf(message.name)) names.add(word);
  for (const line of previous) if (line.speaker) for (const word of wordsOf(line.speaker)) names.add(word);
  const vocabulary = new Vocabulary(documents, names);
  const candidates: Candidate[] = [];
  for (const [order, piece] of pieces.entries()) {
    const content = new Set(piece.words.filter((word) => vocabulary.isContent(word) && wordShare(word) > 0));
    let value = 0;
    let words = 0;
    for (const word of content) {
      value += vocabulary.weight(word) * wordShare(word);
      words += wordShare(word);
    }
    if (piece.siblings > 2) value /= 1 + Math.log2(piece.siblings);
    if (piece.question) value /= 2;
    const strong = [...content].some(isFigure);
    candidates.push({
      text: compact && piece.utterance ? compactSentence(piece.text, vocabulary) : piece.text,
      line: piece.line,
      order,
      speaker: piece.speaker,
      date: piece.date,
      fromPrevious: piece.fromPrevious,
      utterance: piece.utterance,
      content,
      value,
      filler: !strong && words < 2,
    });
    yield;
  }
  return candidates;
}
