/**
 * Recall on real conversations: after a conversation was played through this library, each question (categories
 * 1–4) is searched once, its text as the query, in the compacted thread (searchHistory, its defaults). A question's
 * evidence is found when an evidence turn is among the top 5 hits, or among the messages a hit carries (two before
 * and two after it, by default). And an ablation over every turn of the conversation, to say what each choice buys.
 */
import Database from "better-sqlite3";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { CONTEXT_CHARS, recallLabel } from "../../../src/store/recall-index/entries.js";
import { PostgresRecall } from "../../../src/store/recall-index/postgres-index.js";
import { fts5Expression, queryTerms, searchTerms, tsqueryText } from "../../../src/store/recall-index/query.js";
import { indexTerms } from "../../../src/messages/words.js";
import type { RecallEntry, SearchHit } from "../../../src/store/recall-index/types.js";
import { COMMON_SHARE, documentThreshold } from "../../../src/summarizers/extractive/vocabulary.js";
import type { Dialogue, DialogueQuestion } from "./dataset.js";
import { DialogueScorer, wordsOf, type LineSets } from "./score.js";
import type { RecallFilterOptions } from "../../../src/store/recall-index/filter.js";

export const RECALL_AT = 5;
const CATEGORIES = [1, 2, 3, 4];

export interface RecallTally {
  /** Questions whose evidence is not all in the final context. */
  compactedAway: number;
  /** ...of which an evidence turn is a top-5 hit. */
  foundAsHit: number;
  /** ...or a message a top-5 hit carries (the messages around it). */
  foundWithNeighbours: number;
  questions: number;
  /** Every evidence turn in the final context or among the top-5 hits and their neighbours. */
  contextOrSearch: number;
  /** Every evidence turn in the final context. */
  context: number;
  searchMs: number[];
}

export function emptyRecallTally(): RecallTally {
  return {
    compactedAway: 0,
    foundAsHit: 0,
    foundWithNeighbours: 0,
    questions: 0,
    contextOrSearch: 0,
    context: 0,
    searchMs: [],
  };
}

export function addRecall(into: RecallTally, part: RecallTally): void {
  for (const key of [
    "compactedAway",
    "foundAsHit",
    "foundWithNeighbours",
    "questions",
    "contextOrSearch",
    "context",
  ] as const)
    into[key] += part[key];
  into.searchMs.push(...part.searchMs);
}

function scoredQuestions(dialogue: Dialogue, scorer: DialogueScorer): DialogueQuestion[] {
  return dialogue.questions.filter(
    (question) => CATEGORIES.includes(question.category) && scorer.unscorable(question.evidence).length === 0,
  );
}

const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

/**
 * The filters a model calling search_history would pass for a question — this benchmark's stand-in for a model
 * reading it: the one participant the question names (as `speaker`), and the month it names (as `from` and `to`, in
 * the year the conversation had that month; a model reads the years from the summary's dates). Nothing when the
 * question names no participant or several, nor a month.
 */
export function modelFilters(dialogue: Dialogue, question: string): RecallFilterOptions {
  const words = new Set(wordsOf(question));
  const named = [dialogue.speakerA, dialogue.speakerB].filter((speaker) =>
    wordsOf(speaker).every((word) => words.has(word)),
  );
  const months = MONTHS.flatMap((name, month) => (words.has(name) ? [month] : []));
  const filters: RecallFilterOptions = named.length === 1 ? { speaker: named[0]! } : {};
  if (months.length !== 1) return filters;
  const dated = dialogue.turns.find((turn) => turn.date && new Date(turn.date).getUTCMonth() === months[0]);
  if (!dated) return filters;
  const year = new Date(dated.date!).getUTCFullYear();
  const first = new Date(Date.UTC(year, months[0]!, 1));
  const last = new Date(Date.UTC(year, months[0]! + 1, 0));
  return { ...filters, from: first.toISOString().slice(0, 10), to: last.toISOString().slice(0, 10) };
}

/** Searches every question in the compacted thread and tallies what the final context and one search hold. */
export async function measureRecall(
  dialogue: Dialogue,
  scorer: DialogueScorer,
  finalContext: LineSets,
  search: (query: string, question: DialogueQuestion) => Promise<SearchHit[]>,
): Promise<RecallTally> {
  const tally = emptyRecallTally();
  for (const question of scoredQuestions(dialogue, scorer)) {
    const inContext = new Set(question.evidence.filter((id) => scorer.holdsTurn(finalContext, id)));
    const started = performance.now();
    const hits = await search(question.question, question);
    tally.searchMs.push(performance.now() - started);
    const asHits = new Set(hits.map((hit) => hit.messageId));
    const carried = new Set(
      hits.flatMap((hit) => [...hit.before, hit, ...hit.after].map((message) => message.messageId)),
    );
    tally.questions++;
    if (inContext.size === question.evidence.length) tally.context++;
    else {
      tally.compactedAway++;
      if (question.evidence.some((id) => asHits.has(id))) tally.foundAsHit++;
      if (question.evidence.some((id) => carried.has(id))) tally.foundWithNeighbours++;
    }
    if (question.evidence.every((id) => inContext.has(id) || carried.has(id))) tally.contextOrSearch++;
  }
  return tally;
}

export interface AblationRow {
  choice: string;
  found: number;
  questions: number;
}

/**
 * Every turn of the conversation in an FTS5 table, each question searched once: recall@5 for each step from plain
 * BM25 over the raw text to what the library ships (stemming, the speaker's name, the neighbours a hit carries, the
 * question's function words left out).
 */
export function ablation(dialogue: Dialogue, scorer: DialogueScorer): AblationRow[] {
  const questions = scoredQuestions(dialogue, scorer);
  const porter = "porter unicode61 remove_diacritics 2";
  const variants: Array<{
    choice: string;
    tokenizer: string;
    terms: boolean;
    name: boolean;
    context: boolean;
    neighbours: number;
    keepFunctionWords: boolean;
  }> = [
    {
      choice: "plain BM25 over the raw text (unicode61)",
      tokenizer: "unicode61",
      terms: false,
      name: false,
      context: false,
      neighbours: 0,
      keepFunctionWords: true,
    },
    {
      choice: "+ the library's words (numbers kept whole, CJK pairs)",
      tokenizer: "unicode61",
      terms: true,
      name: false,
      context: false,
      neighbours: 0,
      keepFunctionWords: true,
    },
    {
      choice: "+ English stemming (porter)",
      tokenizer: porter,
      terms: true,
      name: false,
      context: false,
      neighbours: 0,
      keepFunctionWords: true,
    },
    {
      choice: "+ the speaker's name and the day, half weight",
      tokenizer: porter,
      terms: true,
      name: true,
      context: false,
      neighbours: 0,
      keepFunctionWords: true,
    },
    {
      choice: "+ the previous message's words, 0.3 weight",
      tokenizer: porter,
      terms: true,
      name: true,
      context: true,
      neighbours: 0,
      keepFunctionWords: true,
    },
    {
      choice: "+ one message before and after each hit",
      tokenizer: porter,
      terms: true,
      name: true,
      context: true,
      neighbours: 1,
      keepFunctionWords: true,
    },
    {
      choice: "+ two messages before and after each hit",
      tokenizer: porter,
      terms: true,
      name: true,
      context: true,
      neighbours: 2,
      keepFunctionWords: true,
    },
    {
      choice: "+ the question's function words left out (shipped)",
      tokenizer: porter,
      terms: true,
      name: true,
      context: true,
      neighbours: 2,
      keepFunctionWords: false,
    },
  ];
  const rows: AblationRow[] = [];
  for (const variant of variants) {
    const db = new Database(":memory:");
    db.exec(`CREATE VIRTUAL TABLE turns USING fts5(text, name, context, tokenize = '${variant.tokenizer}')`);
    const insert = db.prepare("INSERT INTO turns (rowid, text, name, context) VALUES (?, ?, ?, ?)");
    dialogue.turns.forEach((turn, index) => {
      const previous = variant.context && index > 0 ? indexTerms(dialogue.turns[index - 1]!.text) : "";
      insert.run(
        index + 1,
        variant.terms ? indexTerms(turn.text) : turn.text,
        variant.name ? indexTerms(recallLabel({ name: turn.speaker, date: turn.date })) : "",
        previous,
      );
    });
    const search = db.prepare(
      `SELECT rowid FROM turns WHERE turns MATCH ? ORDER BY bm25(turns, 1.0, 0.5, 0.3) LIMIT ${RECALL_AT}`,
    );
    let found = 0;
    for (const question of questions) {
      const columns = ["text", ...(variant.name ? ["name"] : []), ...(variant.context ? ["context"] : [])].join(" ");
      const expression = `{${columns}} : (${fts5Expression(variant.keepFunctionWords ? queryTerms(question.question) : searchTerms(question.question))})`;
      const ids = new Set<string>();
      for (const { rowid } of search.all(expression) as Array<{ rowid: number }>) {
        for (let offset = -variant.neighbours; offset <= variant.neighbours; offset++) {
          const turn = dialogue.turns[rowid - 1 + offset];
          if (turn) ids.add(turn.id);
        }
      }
      if (question.evidence.some((id) => ids.has(id))) found++;
    }
    db.close();
    rows.push({ choice: variant.choice, found, questions: questions.length });
  }
  return rows;
}

/**
 * The same search over every turn on Postgres, per text search configuration: every word of the question ranked by
 * Postgres's own `ts_rank_cd`; the same with the words common in the thread dropped (what the library shipped before
 * its BM25); and the library's BM25 from the thread's own word counts, with every word of the question and as it
 * ships (the question's function words left out). Each hit carries two messages before
 * and after it, as searchHistory's default.
 */
export async function postgresAblation(dialogues: readonly Dialogue[], url: string): Promise<AblationRow[]> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on("error", () => undefined);
  const schema = `recall_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const rows = new Map<string, AblationRow>();
  const tally = (choice: string, found: boolean) => {
    const row = rows.get(choice) ?? { choice, found: 0, questions: 0 };
    row.questions++;
    if (found) row.found++;
    rows.set(choice, row);
  };
  try {
    await pool.query(`CREATE SCHEMA "${schema}"`);
    for (const language of ["simple", "english"]) {
      const recall = new PostgresRecall(pool, schema, language);
      for (const [index, dialogue] of dialogues.entries()) {
        const scorer = new DialogueScorer(dialogue);
        const threadId = `${language}-${index}`;
        const entries: RecallEntry[] = dialogue.turns.map((turn, ordinal) => ({
          messageId: turn.id,
          role: "user",
          name: turn.speaker,
          ...(turn.date ? { date: turn.date } : {}),
          checkpointId: "all-turns",
          ordinal,
          text: turn.text,
          ...(ordinal > 0 ? { context: dialogue.turns[ordinal - 1]!.text.slice(0, CONTEXT_CHARS) } : {}),
        }));
        await recall.replaceThread(threadId, entries);
        const near = (ordinals: number[]) =>
          new Set(
            ordinals.flatMap((ordinal) => [-2, -1, 0, 1, 2].map((offset) => dialogue.turns[ordinal + offset]?.id)),
          );
        for (const question of scoredQuestions(dialogue, scorer)) {
          const terms = queryTerms(question.question);
          const every = await pool.query(
            `SELECT ordinal FROM "${schema}".compaction_recall WHERE thread_id = $1 AND document @@ to_tsquery($3::regconfig, $2)
             ORDER BY ts_rank_cd(document, to_tsquery($3::regconfig, $2)) DESC, checkpoint_id, ordinal LIMIT ${RECALL_AT}`,
            [threadId, tsqueryText(terms), language],
          );
          const everyIds = near(every.rows.map((row) => Number(row.ordinal)));
          tally(
            `Postgres "${language}", ts_rank_cd, every word of the question (±2 messages)`,
            question.evidence.some((id) => everyIds.has(id)),
          );
          const counts = await pool.query(
            `SELECT term, documents FROM "${schema}".compaction_recall_terms WHERE thread_id = $1 AND term = ANY($2::text[])`,
            [threadId, terms],
          );
          const documentsOf = new Map(counts.rows.map((row) => [String(row.term), Number(row.documents)]));
          const rare = await pool.query(
            `SELECT ordinal FROM "${schema}".compaction_recall WHERE thread_id = $1 AND document @@ to_tsquery($3::regconfig, $2)
             ORDER BY ts_rank_cd('{1.0, 0.2, 0.4, 1.0}'::float4[], document, to_tsquery($3::regconfig, $2)) DESC, checkpoint_id, ordinal LIMIT ${RECALL_AT}`,
            [threadId, tsqueryText(rareTerms(terms, (term) => documentsOf.get(term) ?? 0, entries.length)), language],
          );
          const rareIds = near(rare.rows.map((row) => Number(row.ordinal)));
          tally(
            `Postgres "${language}", ts_rank_cd, common words dropped (before, ±2 messages)`,
            question.evidence.some((id) => rareIds.has(id)),
          );
          const bm25 = near((await recall.search(threadId, terms, RECALL_AT)).map((hit) => hit.ordinal));
          tally(
            `Postgres "${language}", BM25 from the thread's word counts (±2 messages)`,
            question.evidence.some((id) => bm25.has(id)),
          );
          const shipped = near(
            (await recall.search(threadId, searchTerms(question.question), RECALL_AT)).map((hit) => hit.ordinal),
          );
          tally(
            `Postgres "${language}", BM25, the question's function words left out (shipped, ±2 messages)`,
            question.evidence.some((id) => shipped.has(id)),
          );
        }
      }
    }
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
  } finally {
    await pool.end();
  }
  return [...rows.values()];
}

/**
 * The words of a query the library searched on Postgres before its BM25 (ts_rank_cd has no inverse document
 * frequency): those held by fewer than COMMON_SHARE of the thread's messages, or the rarest when every word is
 * common; a word no message holds searched beside them.
 */
function rareTerms(terms: readonly string[], documentsOf: (term: string) => number, documents: number): string[] {
  const commonAt = documentThreshold(documents, COMMON_SHARE);
  const absent = terms.filter((term) => documentsOf(term) === 0);
  const present = terms.filter((term) => documentsOf(term) > 0);
  const rare = present.filter((term) => documentsOf(term) < commonAt);
  if (rare.length > 0 || present.length === 0) return [...rare, ...absent];
  return [present.reduce((best, term) => (documentsOf(term) < documentsOf(best) ? term : best)), ...absent];
}
