/**
 * Words and sentences of message text, for any language (the extractive summarizer and the recall index).
 *
 * - A word is a run of letters, marks and digits, joined across inner apostrophes, hyphens and underscores
 *   ("don't", "e-mail", "INV-2024-0042"); a number keeps its separators ("73,250", "2026-05-04", "12:30").
 *   Words are lower-cased.
 * - Scripts written without spaces (Han, Hiragana, Katakana, Thai) have no word boundaries to find: a run of them is
 *   read as overlapping character pairs, the usual unit of full-text search for these scripts, so a rare name or
 *   term there is as distinctive as a rare word elsewhere.
 * - A sentence ends at a line break, at . ! ? … followed by a space, at 。！？ (no space follows them), and at a
 *   semicolon followed by a capitalized clause; records glued as "},{" are split too.
 */

const NUMBER = String.raw`\p{N}+(?:[.,:/-]\p{N}+)*`;
const WORD = String.raw`[\p{L}\p{M}\p{N}]+(?:['’_-][\p{L}\p{M}\p{N}]+)*`;
const TOKEN = new RegExp(`${NUMBER}(?![\\p{L}\\p{M}\\p{N}])|${WORD}`, "gu");
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]+/gu;
const HAS_UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;

/** Overlapping pairs of a run of unspaced characters; a single character stands alone. */
function pairs(run: string): string[] {
  const characters = [...run];
  if (characters.length < 2) return characters;
  const result: string[] = [];
  for (let index = 0; index + 1 < characters.length; index++) result.push(characters[index]! + characters[index + 1]!);
  return result;
}

/** The words of `text`, lower-cased, in order (repeats kept). */
/** The words an index matches on for `text` (wordsOf, the same cutting as queries), joined by spaces. */
export function indexTerms(text: string): string {
  return wordsOf(text).join(" ");
}

export function wordsOf(text: string): string[] {
  const words: string[] = [];
  for (const match of text.toLowerCase().matchAll(TOKEN)) {
    const token = match[0];
    if (!HAS_UNSPACED.test(token)) {
      words.push(token);
      continue;
    }
    // Mixed runs ("東京2024年"): the spaced parts stay words, the unspaced parts become pairs.
    let last = 0;
    for (const run of token.matchAll(UNSPACED)) {
      if (run.index! > last) words.push(token.slice(last, run.index));
      words.push(...pairs(run[0]));
      last = run.index! + run[0].length;
    }
    if (last < token.length) words.push(token.slice(last));
  }
  return words;
}

/** True for a number ("17", "73,250", "2026-05-04"). */
export function isNumber(word: string): boolean {
  return /^\p{N}+(?:[.,:/-]\p{N}+)*$/u.test(word);
}

/** True for an identifier: letters and digits mixed ("inv-2024-0042", "gpt-4o", "pr_1182"). */
export function isIdentifier(word: string): boolean {
  return /\p{L}/u.test(word) && /\p{N}/u.test(word);
}

const KANA_ONLY = /^[\p{Script=Hiragana}ー]+$/u;

/**
 * How much of a word `word` is. A word of a spaced script is one. Overlapping pairs of an unspaced script count
 * half each (a two-character word yields one pair, a four-character one three: halving keeps a sentence's weight
 * near its number of words), and pairs of hiragana alone count nothing: in Japanese they spell particles, endings
 * and set phrases ("ありがとう", "すごいね"), while names and terms are written in kanji or katakana.
 */
export function wordShare(word: string): number {
  if (!HAS_UNSPACED.test(word)) return 1;
  return KANA_ONLY.test(word) ? 0 : 0.5;
}

const SENTENCE_BREAK = /\n+|(?<=[.!?…])\s+|(?<=[。！？])\s*|(?<=;)\s+(?=[\p{Lu}"'([])|(?<=\},)(?=\{)/u;

/** The sentences of `text`, white space folded, empty ones dropped. */
export function splitSentences(text: string): string[] {
  return text
    .split(SENTENCE_BREAK)
    .map((piece) => (piece ?? "").replace(/\s+/g, " ").trim())
    .filter((piece) => piece.length > 0);
}

/** A figure: a number or an identifier — a fact of its own however often it recurs ("4,300", "INV-7", "ADR-444"). */
export function isFigure(word: string): boolean {
  return isNumber(word) || isIdentifier(word);
}

/** `text` cut to at most `maxLength` characters, at a word when one ends in its second half, the cut marked with "…". */
export function clipAtWord(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  const cut = text.slice(0, maxLength - 1);
  const space = cut.lastIndexOf(" ");
  return `${space > maxLength / 2 ? cut.slice(0, space) : cut}…`;
}
