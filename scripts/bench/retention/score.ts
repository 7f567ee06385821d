/**
 * Line-level scoring of what a model receives. A line is one message, or one line of a summary (any message's text
 * is split at line breaks). It is deliberately independent of the library's own text processing (its own word
 * splitting, its own notion of a content word), so that the score does not reward the summarizer for agreeing with
 * itself.
 *
 * - An evidence turn is held when one line holds at least half of the turn's distinctive words: words that occur
 *   in at most 5 turns of the conversation. A turn with no distinctive word cannot be scored and is reported.
 * - A question's evidence is retained when every one of its evidence turns is held (a multi-hop question needs all).
 * - Its answer is retained when one line holds at least half of the answer's specific words: not function words,
 *   not the conversation's common words (in 5% of the turns or more). A common word matches lines all over the
 *   conversation ("dance" in a conversation about a dance studio), which would credit any context for holding an
 *   answer it does not hold. An answer with no specific word ("Yes", "By dancing") cannot be checked by its words
 *   and is left out of the answer figure.
 * - A line's leading bullet and bracketed date ("- [8 May 2023] ") are not part of its text: a date a summary adds
 *   to every line would otherwise "hold" every answer that names the year.
 * - A summary line is filler when it carries no content word beyond the speakers' names (and nicknames: prefixes of
 *   them), function words, greetings, thanks, agreement and appraisal ("Wow Mel, that looks amazing!"), and the
 *   conversation's most common words (in 5% of the turns or more). This judge uses a generic English lexicon of
 *   small talk; the summarizer does not (it knows only the thread's own statistics), so the measure does not
 *   reward the summarizer for agreeing with itself.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { Dialogue } from "./dataset.js";

export const DISTINCTIVE_MAX_TURNS = 5;
const COMMON_SHARE = 0.05;

/** Generic English function words (for answers and filler only; evidence uses the conversation's own counts). */
const FUNCTION_WORDS = new Set(
  (
    "a an the and or but nor so yet for of to in on at by with from into onto over under about above below after before " +
    "between through during without within as than then that this these those there here what which who whom whose when " +
    "where why how i me my mine we us our ours you your yours he him his she her hers it its they them their theirs is " +
    "am are was were be been being have has had do does did will would shall should can could may might must not no " +
    "yes all any both each few more most other some such only own same too very just also s t d ll m re ve don didn " +
    "doesn isn wasn aren weren hasn haven hadn won wouldn couldn shouldn if because while until again once up down out off"
  ).split(" "),
);

/** Generic English small talk: greetings, thanks, agreement, reactions and appraisal (for the filler measure only). */
const SMALL_TALK = new Set(
  (
    "hey hi hello hiya bye goodbye cya thanks thank thx welcome sorry please yes yeah yep yup nope ok okay sure cool " +
    "nice great good awesome amazing wow whoa oh ah aw aww haha hahaha lol omg congrats congratulations glad happy " +
    "love loved lovely beautiful wonderful fantastic incredible stunning gorgeous breathtaking brilliant perfect fun " +
    "exciting excited agree agreed totally absolutely definitely really super indeed true right appreciate " +
    "appreciated kind sweet proud inspiring chat chatting talk talking soon later see seeing hope hoping hear hearing " +
    "sounds sound looks look seems feel feels felt must ve been going doing what's how's that's it's you're i'm " +
    "there's let's can't won't don't keep up hang care take enjoy enjoyed fantastic thrilled blast cheers"
  ).split(" "),
);

export function wordsOf(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => word.length > 0);
}

export interface LineSets {
  lines: string[];
  sets: Array<Set<string>>;
}

/** A line without its bullet and bracketed prefix. */
export function lineText(line: string): string {
  return line.replace(/^\s*[-*]\s*/, "").replace(/^\[[^\]]*\]\s*/, "");
}

/**
 * The context as lines: each message's text split at line breaks. Of a summary (`isSummary`), only its content
 * lines count: not its first line (the summary's own caption), headings (a line ending in ":", a date heading such
 * as "8 May 2023:" among them, or starting with "#"), nor a coverage header ("Covers N messages, <dates>"). These
 * are the summary's metadata: a date in them would otherwise "hold" every answer that names the year.
 */
export function contextLines(messages: readonly BaseMessage[], isSummary: (message: BaseMessage) => boolean): LineSets {
  const lines: string[] = [];
  for (const message of messages) {
    const text = typeof message.content === "string" ? message.content : message.text;
    const summary = isSummary(message);
    for (const line of summary ? summaryContentLines(text) : text.split("\n"))
      if (line.trim()) lines.push(lineText(line));
  }
  return { lines, sets: lines.map((line) => new Set(wordsOf(line))) };
}

/** The content lines of a summary's text (see contextLines). */
export function summaryContentLines(text: string): string[] {
  return text
    .split("\n")
    .slice(1)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#") && !line.endsWith(":") && !/^Covers \d/.test(line));
}

function heldByOneLine(context: LineSets, words: readonly string[]): boolean {
  if (words.length === 0) return false;
  const needed = Math.ceil(words.length / 2);
  return context.sets.some((set) => {
    let found = 0;
    for (const word of words) if (set.has(word) && ++found >= needed) return true;
    return false;
  });
}

export class DialogueScorer {
  /** Distinctive words of each turn, by turn id. */
  readonly distinctive = new Map<string, string[]>();
  private readonly common = new Set<string>();
  private readonly names: Set<string>;
  /** First three letters of each name: a word starting with one and no longer than the name is a nickname ("mel"). */
  private readonly nameStems: string[];

  constructor(readonly dialogue: Dialogue) {
    const turnWords = dialogue.turns.map((turn) => new Set(wordsOf(turn.text)));
    const turnCount = new Map<string, number>();
    for (const words of turnWords) for (const word of words) turnCount.set(word, (turnCount.get(word) ?? 0) + 1);
    dialogue.turns.forEach((turn, index) => {
      this.distinctive.set(
        turn.id,
        [...turnWords[index]!].filter((word) => turnCount.get(word)! <= DISTINCTIVE_MAX_TURNS),
      );
    });
    for (const [word, count] of turnCount) if (count >= COMMON_SHARE * dialogue.turns.length) this.common.add(word);
    this.names = new Set([...wordsOf(dialogue.speakerA), ...wordsOf(dialogue.speakerB)]);
    this.nameStems = [...this.names].map((name) => name.slice(0, 3));
  }

  /** Evidence turns that cannot be scored (no distinctive word). */
  unscorable(turnIds: readonly string[]): string[] {
    return turnIds.filter((id) => (this.distinctive.get(id)?.length ?? 0) === 0);
  }

  holdsTurn(context: LineSets, turnId: string): boolean {
    return heldByOneLine(context, this.distinctive.get(turnId) ?? []);
  }

  /** The words an answer is recognised by (see the module comment). */
  answerWords(answer: string): string[] {
    return [...new Set(wordsOf(answer))].filter((word) => !FUNCTION_WORDS.has(word) && !this.common.has(word));
  }

  /** False when the answer has no specific word: it cannot be checked (see the module comment). */
  answerCheckable(answer: string): boolean {
    return this.answerWords(answer).length > 0;
  }

  holdsAnswer(context: LineSets, answer: string): boolean {
    return heldByOneLine(context, this.answerWords(answer));
  }

  /** True when `line` has no word beyond names, function words and the conversation's common words. */
  isFiller(line: string): boolean {
    return !wordsOf(lineText(line)).some((word) => this.isContentWord(word));
  }

  private isContentWord(word: string): boolean {
    if (FUNCTION_WORDS.has(word) || SMALL_TALK.has(word) || this.names.has(word) || this.common.has(word)) return false;
    if (this.nameStems.some((stem) => word.startsWith(stem) && word.length <= 8)) return false;
    return word.length > 2 || /^\d+$/.test(word);
  }
}
