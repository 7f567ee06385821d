/**
 * A sentence someone said, in fewer tokens: the thread's grammar words left out, every word that carries a fact kept.
 *
 *   "I ran a charity race for mental health last Saturday – it was so rewarding."
 *   → "ran charity race mental health last Saturday – rewarding."
 *
 * A word is left out when the thread itself says it is grammar: it is in GRAMMAR_SHARE of the thread's documents or
 * more (and in at least MIN_COMMON_DOCUMENTS of them) — "the", "a", "I", "to", "was", "so" in any conversation, their
 * counterparts in any language that spaces its words. The same statistics as the summarizer's notion of a common word
 * (vocabulary.ts), at twice its share, so the words a thread merely talks about often ("kids", "painting") stay.
 * Never left out, whatever their frequency:
 * - numbers and identifiers, and words written with a capital inside a sentence (a name: "Alice Moreau", "Sweden");
 * - words that turn a statement around (NEGATIONS: "not", "never", "don't", "nicht", "jamais", …);
 * - words of unspaced scripts (Chinese, Japanese, Thai: the vocabulary counts them by pairs, not as written).
 *
 * Why: the summary's budget is the model's context. On the retention benchmark's real conversations the same budget
 * then holds more of what was said (docs/benchmarks.md has the figures, measured with and without). On by default;
 * `ExtractiveSummarizer({ compactSentences: false })` keeps sentences as written.
 */
import { isFigure } from "../../messages/words.js";
import { documentThreshold, type Vocabulary } from "./vocabulary.js";

/** A word in this share of the thread's documents or more is grammar (twice the share of a common word). */
export const GRAMMAR_SHARE = 0.1;

/** Words that turn a statement around, in the languages the library is used in most; never left out. */
const NEGATIONS = new Set([
  ...["not", "no", "never", "nor", "none", "nothing", "nobody", "nowhere", "neither", "cannot", "without"],
  ...["nicht", "kein", "keine", "keinen", "keinem", "keiner", "nie", "niemals", "nichts", "ohne"],
  ...["ne", "pas", "jamais", "rien", "aucun", "aucune", "personne", "sans"],
  ...[
    "nunca",
    "nada",
    "nadie",
    "ningún",
    "ninguna",
    "ninguno",
    "sin",
    "non",
    "mai",
    "niente",
    "nessuno",
    "senza",
    "não",
    "nem",
    "geen",
    "niet",
    "nooit",
    "zonder",
  ],
]);
const CONTRACTED_NEGATION = /n['’]t$/;
const SPACED_WORD = /[\p{L}\p{M}\p{N}]+(?:['’_-][\p{L}\p{M}\p{N}]+)*/gu;
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;
const CAPITALIZED = /^\p{Lu}/u;
/** Where a sentence (or a clause after a colon or dash) starts: its first word's capital says nothing. */
const STARTS_SENTENCE = /(?:^|[.!?:;"“([–—-]\s*)$/u;

function isGrammar(word: string, vocabulary: Vocabulary, grammarAt: number): boolean {
  if (isFigure(word) || UNSPACED.test(word)) return false;
  if (NEGATIONS.has(word) || CONTRACTED_NEGATION.test(word)) return false;
  return vocabulary.documentFrequency(word) >= grammarAt && !vocabulary.isName(word);
}

/** `sentence` without the thread's grammar words (see the module comment); the sentence itself when nothing is left. */
export function compactSentence(sentence: string, vocabulary: Vocabulary): string {
  const grammarAt = documentThreshold(vocabulary.documents, GRAMMAR_SHARE);
  let dropped = false;
  const kept = sentence.replace(SPACED_WORD, (token, offset: number) => {
    const word = token.toLowerCase();
    if (!isGrammar(word, vocabulary, grammarAt)) return token;
    const named = CAPITALIZED.test(token) && [...token].length > 1 && !STARTS_SENTENCE.test(sentence.slice(0, offset));
    if (named) return token;
    dropped = true;
    return "";
  });
  if (!dropped) return sentence;
  const text = kept
    .replace(/([([“"])\s+/g, "$1")
    .replace(/\s+([,.;:!?…)\]”])/g, "$1")
    .replace(/([,;:])(?:\s*[,;:])+/g, "$1")
    .replace(/([,;:])(?=[.!?…])/g, "")
    .replace(/\s{2,}/g, " ")
    .replace(/^[\s,;:.–—-]+/u, "")
    .trim();
  return /[\p{L}\p{N}]/u.test(text) ? text : sentence;
}
