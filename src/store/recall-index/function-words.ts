/**
 * The function words a search leaves out of a query: English pronouns, determiners, auxiliaries, prepositions,
 * conjunctions and question words ("what", "did", "the", "has") — the closed classes of the language, not the
 * vocabulary of any thread.
 *
 * Why a list and not the thread's own statistics: in one thread, the words of its topic recur as often as its grammar
 * words ("painting" in a conversation about painting is in as many messages as "has"), so an inverse document
 * frequency cannot tell them apart, and a question's grammar ("What has Melanie painted?") outweighs its topic.
 * Dropping the query words a thread holds often (at 5, 10 or 20% of its messages) drops the topic too: it found fewer
 * evidence turns on the retention benchmark's conversations, where this list finds more (docs/benchmarks.md).
 *
 * English, as SQLite's default stemmer (porter) is: the list is the closed classes only, so a word that is also a
 * noun or a name ("will", "can", "won", "may", "don") stays. A query of nothing but these words is searched as
 * written. Only queries are cut; the index keeps every word.
 */

export const FUNCTION_WORDS: ReadonlySet<string> = new Set(
  // pronouns and determiners
  (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself " +
    "it its itself they them their theirs themselves this that these those a an the some any each every either neither " +
    "both all few other another such " +
    // question words
    "what which who whom whose when where why how " +
    // auxiliaries (and the parts a contraction leaves: "didn't" is "didn")
    "am is are was were be been being have has had having do does did doing would should could might must shall " +
    "isn aren wasn weren hasn haven hadn doesn didn wouldn shouldn couldn mustn ll re ve " +
    // prepositions and conjunctions
    "of at by for with about against between into through during before after above below to from up down in out on " +
    "off over under onto upon within without among toward towards and but or nor if because as until while than so " +
    "then once here there again further also just very too only own same not no"
  ).split(" "),
);

/** `terms` without FUNCTION_WORDS; `terms` themselves when nothing else is left. */
export function withoutFunctionWords(terms: readonly string[]): string[] {
  const kept = terms.filter((term) => !FUNCTION_WORDS.has(term));
  return kept.length > 0 ? kept : [...terms];
}
