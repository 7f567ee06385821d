/**
 * What survives compaction on real conversations: each conversation of a LoCoMo-schema file is replayed turn by
 * turn through a real createAgent graph per contender (its own SQLite file, the same budget), and what the model
 * receives is scored at several points: the first model call of every session once the conversation has outgrown
 * the budget, and a final call after the last turn. Questions count at a point once every evidence turn lies in an
 * earlier session. See retention/score.ts for the line-level metrics.
 *
 * Run: npm run bench:retention [-- --data <file>] [--budgets 0.25,0.5] [--json]
 * The data (CC BY-NC) is read where it lies, by default ../shared/eval/locomo-dev.json; never copied.
 */
import "../../src/store/all-backends.js";
import { SystemMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { isSummaryMessage } from "../../src/messages/summary-message.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import type { SummarizerTokens } from "../../src/engine/summarizer-tokens.js";
import { RETENTION_CONTENDERS, type RetentionContender } from "./retention/contenders.js";
import { loadDialogues, type Dialogue } from "./retention/dataset.js";
import { createPlayer, groupTurns, userMessage, type TurnGroup } from "./retention/player.js";
import type { PricedCall } from "./cost/pricing.js";
import { pricedCall } from "./cost/priced-call.js";
import { contextLines, DialogueScorer, summaryContentLines, type LineSets } from "./retention/score.js";
import { readmeBlock } from "./readme-block.js";
import { median, printNote, printTable } from "./table.js";
import { startPostgres } from "../../test/support/postgres-server.js";
import {
  ablation,
  addRecall,
  postgresAblation,
  emptyRecallTally,
  measureRecall,
  modelFilters,
  RECALL_AT,
  type AblationRow,
  type RecallTally,
} from "./retention/recall.js";

export const DEFAULT_DATA = "../shared/eval/locomo-dev.json";
export const DEFAULT_BUDGETS = [0.25, 0.5];
const CATEGORIES = [1, 2, 3, 4];
const CATEGORY_NAMES: Record<number, string> = { 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop" };
const MIDDLEWARE_SUMMARY_PREFIX = "Here is a summary of the conversation to date:";

/** Counts pooled over probe points and conversations. */
export interface Tally {
  scored: number;
  evidence: number;
  /** Questions whose answer has a word to look for (see score.ts), and those whose answer was held. */
  answerScored: number;
  answer: number;
  byCategory: Record<number, { scored: number; evidence: number; answer: number }>;
  byQuartile: Array<{ scored: number; evidence: number }>;
}

export interface RetentionResult {
  contender: string;
  budgetShare: number;
  /** Sum of the budgets of the conversations (tokens). */
  budgets: number[];
  probes: number;
  tally: Tally;
  unscorable: number;
  calls: number;
  /** Mean and max tokens per model call, each as a share of its conversation's budget. */
  tokensMeanShare: number;
  tokensMaxShare: number;
  tokensMean: number;
  tokensMax: number;
  summaryLines: number;
  fillerLines: number;
  summarizerCalls: number;
  summarizerMs: number;
  /** The summarizer's own tokens, when its contender reports them (this library's wrapper with LlmSummarizer). */
  summarizerTokens?: SummarizerTokens;
  /** The prompt cache the compactions broke, summed, and the compactions (this library's wrapper). */
  rewritten?: { tokens: number; compactions: number };
  playMs: number;
  /** One search per question in the compacted thread (this library's contenders). */
  recall?: RecallTally;
  /** The same searches with the filters a model would pass (retention/recall.ts: modelFilters). */
  recallFiltered?: RecallTally;
  /** Every model call with what the prompt cache serves of it (bench:cost prices them). */
  pricedCalls: PricedCall[];
}

function emptyTally(): Tally {
  return {
    scored: 0,
    evidence: 0,
    answerScored: 0,
    answer: 0,
    byCategory: Object.fromEntries(CATEGORIES.map((category) => [category, { scored: 0, evidence: 0, answer: 0 }])),
    byQuartile: [0, 1, 2, 3].map(() => ({ scored: 0, evidence: 0 })),
  };
}

export function systemPromptOf(dialogue: Dialogue): string {
  return `You are ${dialogue.speakerB}, chatting with your friend ${dialogue.speakerA} over many months. Reply as ${dialogue.speakerB}.`;
}

export function budgetOf(dialogue: Dialogue, share: number, counter: TokenCounter): number {
  const total = counter.countMessages([
    new SystemMessage(systemPromptOf(dialogue)),
    ...dialogue.turns.map((turn) => userMessage(turn)),
  ]);
  return Math.floor(total * share);
}

/** Indices of the groups whose first model call is scored, with the session before which evidence must lie. */
export function probePoints(
  dialogue: Dialogue,
  groups: readonly TurnGroup[],
  budget: number,
  counter: TokenCounter,
): Array<{ group: number; beforeSession: number }> {
  const system = counter.countMessages([new SystemMessage(systemPromptOf(dialogue))]);
  const cumulative: number[] = [];
  let total = system;
  for (const turn of dialogue.turns) cumulative.push((total += counter.countMessage(userMessage(turn))));
  const points: Array<{ group: number; beforeSession: number }> = [];
  groups.forEach((group, index) => {
    const final = index === groups.length - 1;
    if (!final && (index === 0 || groups[index - 1]!.session === group.session)) return;
    const firstTurn = group.inputs[0] ?? group.reply;
    const before = firstTurn ? (cumulative[firstTurn.index - 1] ?? system) : total;
    if (before <= budget) return;
    points.push({ group: index, beforeSession: final ? Number.POSITIVE_INFINITY : group.session });
  });
  return points;
}

/** True for a summary in the context: this library's, or the middleware's. */
function isSummary(message: BaseMessage): boolean {
  const text = typeof message.content === "string" ? message.content : message.text;
  return isSummaryMessage(message) || text.startsWith(MIDDLEWARE_SUMMARY_PREFIX);
}

/** Where a run's thread is stored: a checkpointer, and what closes it and removes its data. */
export interface RunStore {
  checkpointer: BaseCheckpointSaver;
  close(): Promise<void>;
}

/** A SQLite file in `dir` (the default store of a run). */
export function sqliteStore(dir: string): (name: string) => Promise<RunStore> {
  return async (name) => {
    const path = join(dir, `${name}.sqlite`);
    const checkpointer = SqliteSaver.fromConnString(path);
    return {
      checkpointer,
      close: async () => {
        checkpointer.db.close();
        for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
      },
    };
  };
}

/** A schema of its own on the Postgres at `url`, dropped after the run. */
export function postgresStore(url: string): (name: string) => Promise<RunStore> {
  return async () => {
    const schema = `retention_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
    const checkpointer = PostgresSaver.fromConnString(url, { schema });
    await checkpointer.setup();
    return {
      checkpointer,
      close: async () => {
        await checkpointer.end();
        const pool = new pg.Pool({ connectionString: url, max: 1 });
        try {
          await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
        } finally {
          await pool.end();
        }
      },
    };
  };
}

export async function runRetention(
  dialogue: Dialogue,
  contender: RetentionContender,
  budgetShare: number,
  counter: TokenCounter,
  open: (name: string) => Promise<RunStore>,
): Promise<RetentionResult> {
  const groups = groupTurns(dialogue);
  const budget = budgetOf(dialogue, budgetShare, counter);
  const player = createPlayer(groups, counter);
  const store = await open(`${dialogue.id}-${budgetShare}-${contender.name.replace(/\W+/g, "-")}`);
  const { checkpointer } = store;
  const running = contender.build({
    model: player.model,
    checkpointer,
    budget,
    counter,
    systemPrompt: systemPromptOf(dialogue),
    agentName: dialogue.speakerB,
  });
  const started = performance.now();
  let playMs = 0;
  let recall: RecallTally | undefined;
  let summarizerTokens: SummarizerTokens | undefined;
  let rewritten: RetentionResult["rewritten"];
  let recallFiltered: RecallTally | undefined;
  const scorer = new DialogueScorer(dialogue);
  try {
    for (const [index, group] of groups.entries()) {
      player.begin(index);
      await running.invoke(group.inputs.map(userMessage), dialogue.id, {
        coldCache: index > 0 && groups[index - 1]!.session !== group.session,
      });
    }
    playMs = performance.now() - started;
    summarizerTokens = running.summarizerTokens?.(dialogue.id);
    rewritten = running.rewritten?.(dialogue.id);
    // One search per question in the compacted thread, against what the model received last.
    if (running.search) {
      const last = player.records.at(-1)!;
      const finalContext = contextLines(last.messages, isSummary);
      recall = await measureRecall(dialogue, scorer, finalContext, (query) => running.search!(dialogue.id, query));
      recallFiltered = await measureRecall(dialogue, scorer, finalContext, (query, question) =>
        running.search!(dialogue.id, query, modelFilters(dialogue, question.question)),
      );
    }
  } finally {
    await store.close();
  }
  const tally = emptyTally();
  let unscorable = 0;
  let summaryCount = 0;
  let fillerCount = 0;
  const turnsById = new Map(dialogue.turns.map((turn) => [turn.id, turn]));
  const points = probePoints(dialogue, groups, budget, counter);
  for (const point of points) {
    const record = player.records.find((candidate) => candidate.group === point.group);
    if (!record) throw new Error(`${contender.name}: no model call for group ${point.group}`);
    const context: LineSets = contextLines(record.messages, isSummary);
    const lines = record.messages
      .filter(isSummary)
      .flatMap((message) => summaryContentLines(typeof message.content === "string" ? message.content : message.text));
    summaryCount += lines.length;
    fillerCount += lines.filter((line) => scorer.isFiller(line)).length;
    for (const question of dialogue.questions) {
      if (!CATEGORIES.includes(question.category)) continue;
      const evidence = question.evidence.map((id) => turnsById.get(id)!);
      if (evidence.some((turn) => turn.session >= point.beforeSession)) continue;
      if (scorer.unscorable(question.evidence).length > 0) {
        unscorable++;
        continue;
      }
      const held = question.evidence.every((id) => scorer.holdsTurn(context, id));
      const checkable = scorer.answerCheckable(question.answer);
      const answered = checkable && scorer.holdsAnswer(context, question.answer);
      const quartile = Math.min(
        3,
        Math.floor((Math.min(...evidence.map((turn) => turn.index)) / dialogue.turns.length) * 4),
      );
      tally.scored++;
      tally.evidence += Number(held);
      tally.answerScored += Number(checkable);
      tally.answer += Number(answered);
      const category = tally.byCategory[question.category]!;
      category.scored++;
      category.evidence += Number(held);
      category.answer += Number(answered);
      tally.byQuartile[quartile]!.scored++;
      tally.byQuartile[quartile]!.evidence += Number(held);
    }
  }
  const tokens = player.records.map((record) => record.tokens);
  const pricedCalls = player.records.map((record, index): PricedCall => {
    const previous = player.records[index - 1];
    const reply = groups[record.group]!.reply;
    return pricedCall(previous, record, {
      counter,
      output: reply ? counter.countText(reply.text) : 0,
      gapMinutes:
        previous && groups[previous.group]!.session === groups[record.group]!.session ? 1 : Number.POSITIVE_INFINITY,
    });
  });
  return {
    contender: contender.name,
    budgetShare,
    budgets: [budget],
    probes: points.length,
    tally,
    unscorable,
    calls: tokens.length,
    tokensMean: tokens.reduce((sum, value) => sum + value, 0) / tokens.length,
    tokensMax: Math.max(...tokens),
    tokensMeanShare: tokens.reduce((sum, value) => sum + value, 0) / tokens.length / budget,
    tokensMaxShare: Math.max(...tokens) / budget,
    summaryLines: summaryCount,
    fillerLines: fillerCount,
    summarizerCalls: running.summarizer.calls,
    summarizerMs: running.summarizer.ms,
    ...(summarizerTokens ? { summarizerTokens } : {}),
    ...(rewritten ? { rewritten } : {}),
    playMs,
    ...(recall ? { recall } : {}),
    ...(recallFiltered ? { recallFiltered } : {}),
    pricedCalls,
  };
}

/** Pools the results of one contender and budget over the conversations. */
function pool(results: RetentionResult[]): RetentionResult {
  const first = results[0]!;
  const tally = emptyTally();
  for (const { tally: part } of results) {
    tally.scored += part.scored;
    tally.evidence += part.evidence;
    tally.answerScored += part.answerScored;
    tally.answer += part.answer;
    for (const category of CATEGORIES) {
      for (const key of ["scored", "evidence", "answer"] as const)
        tally.byCategory[category]![key] += part.byCategory[category]![key];
    }
    part.byQuartile.forEach((quartile, index) => {
      tally.byQuartile[index]!.scored += quartile.scored;
      tally.byQuartile[index]!.evidence += quartile.evidence;
    });
  }
  const calls = results.reduce((sum, result) => sum + result.calls, 0);
  const sum = (pick: (result: RetentionResult) => number) => results.reduce((total, result) => total + pick(result), 0);
  return {
    contender: first.contender,
    budgetShare: first.budgetShare,
    budgets: results.flatMap((result) => result.budgets),
    probes: sum((result) => result.probes),
    tally,
    unscorable: sum((result) => result.unscorable),
    calls,
    tokensMean: sum((result) => result.tokensMean * result.calls) / calls,
    tokensMax: Math.max(...results.map((result) => result.tokensMax)),
    tokensMeanShare: sum((result) => result.tokensMeanShare * result.calls) / calls,
    tokensMaxShare: Math.max(...results.map((result) => result.tokensMaxShare)),
    summaryLines: sum((result) => result.summaryLines),
    fillerLines: sum((result) => result.fillerLines),
    summarizerCalls: sum((result) => result.summarizerCalls),
    summarizerMs: sum((result) => result.summarizerMs),
    playMs: sum((result) => result.playMs),
    ...(results.every((result) => result.rewritten)
      ? {
          rewritten: {
            tokens: sum((result) => result.rewritten!.tokens),
            compactions: sum((result) => result.rewritten!.compactions),
          },
        }
      : {}),
    ...(results.every((result) => result.recall) ? { recall: pooledRecall(results, "recall") } : {}),
    ...(results.every((result) => result.recallFiltered)
      ? { recallFiltered: pooledRecall(results, "recallFiltered") }
      : {}),
    pricedCalls: results.flatMap((result) => result.pricedCalls),
  };
}

function pooledRecall(results: RetentionResult[], key: "recall" | "recallFiltered"): RecallTally {
  const tally = emptyRecallTally();
  for (const result of results) addRecall(tally, result[key]!);
  return tally;
}

const pct = (part: number, whole: number) => (whole === 0 ? "—" : `${((part / whole) * 100).toFixed(1)}%`);

export function retentionRows(results: RetentionResult[]): Array<Record<string, string | number>> {
  return results.map((result) => ({
    budget: `${result.budgetShare * 100}%`,
    contender: result.contender,
    scored: result.tally.scored,
    evidence: pct(result.tally.evidence, result.tally.scored),
    answer: pct(result.tally.answer, result.tally.answerScored),
    ...Object.fromEntries(
      CATEGORIES.map((category) => [
        `${CATEGORY_NAMES[category]}`,
        pct(result.tally.byCategory[category]!.evidence, result.tally.byCategory[category]!.scored),
      ]),
    ),
    ...Object.fromEntries(
      result.tally.byQuartile.map((quartile, index) => [`Q${index + 1}`, pct(quartile.evidence, quartile.scored)]),
    ),
    "tokens/call mean": `${Math.round(result.tokensMean)} (${result.tokensMeanShare.toFixed(2)}×)`,
    max: `${result.tokensMax} (${result.tokensMaxShare.toFixed(2)}×)`,
    filler: result.summaryLines === 0 ? "—" : pct(result.fillerLines, result.summaryLines),
    "summ. calls": result.summarizerCalls,
    "summ. ms": Math.round(result.summarizerMs),
    "rewritten/compaction": result.rewritten?.compactions
      ? Math.round(result.rewritten.tokens / result.rewritten.compactions)
      : "—",
  }));
}

export interface RetentionOptions {
  data?: string;
  budgets?: number[];
  contenders?: RetentionContender[];
  /** Progress lines on stderr. @default true */
  progress?: boolean;
}

export interface RetentionOutcome {
  results: RetentionResult[];
  /** The first library contender's runs again with the thread on Postgres, for its recall row. */
  postgresRecall: RetentionResult[];
  /** Recall@5 over every turn of the conversations, choice by choice (pooled). */
  ablation: AblationRow[];
  notes: string[];
}

export async function benchRetention({
  data = DEFAULT_DATA,
  budgets = DEFAULT_BUDGETS,
  contenders = RETENTION_CONTENDERS,
  progress = true,
}: RetentionOptions = {}): Promise<RetentionOutcome> {
  const path = resolve(data);
  if (!existsSync(path)) throw new Error(`no conversation file at ${path} (pass --data <file> in the LoCoMo schema)`);
  const dialogues = loadDialogues(path);
  const counter = new TokenCounter();
  const dir = mkdtempSync(join(tmpdir(), "compaction-retention-"));
  const notes = [
    `${dialogues.length} conversation(s) from ${path}: ${dialogues.map((dialogue) => `${dialogue.id} (${dialogue.turns.length} turns, ${dialogue.questions.filter((question) => CATEGORIES.includes(question.category)).length} questions in categories 1-4)`).join(", ")}`,
    `evidence ids repaired: ${dialogues.reduce((sum, dialogue) => sum + dialogue.repairedEvidence, 0)}, dropped (no such turn): ${dialogues.reduce((sum, dialogue) => sum + dialogue.droppedEvidence, 0)}`,
  ];
  const results: RetentionResult[] = [];
  try {
    for (const share of budgets) {
      for (const contender of contenders) {
        const skipped = contender.skip?.();
        if (skipped) {
          const note = `skipped "${contender.name}": ${skipped}`;
          if (!notes.includes(note)) notes.push(note);
          continue;
        }
        const parts: RetentionResult[] = [];
        for (const dialogue of dialogues) {
          const part = await runRetention(dialogue, contender, share, counter, sqliteStore(dir));
          parts.push(part);
          if (progress)
            process.stderr.write(
              `  ${share * 100}% ${dialogue.id} ${contender.name}: evidence ${pct(part.tally.evidence, part.tally.scored)}, ${(part.playMs / 1000).toFixed(1)} s\n`,
            );
        }
        results.push(pool(parts));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const unscorable = results[0]?.unscorable ?? 0;
  notes.push(
    `questions skipped at each point because an evidence turn has no distinctive word: ${unscorable} (pooled over points, first contender)`,
  );
  const rows = new Map<string, AblationRow>();
  for (const dialogue of dialogues) {
    for (const row of ablation(dialogue, new DialogueScorer(dialogue))) {
      const pooled = rows.get(row.choice) ?? { choice: row.choice, found: 0, questions: 0 };
      pooled.found += row.found;
      pooled.questions += row.questions;
      rows.set(row.choice, pooled);
    }
  }
  const postgres = await startPostgres();
  // The recall of the defaults once more with the thread on Postgres (its full-text index), the searches as above.
  const postgresRecall: RetentionResult[] = [];
  try {
    rows.set("", { choice: "", found: 0, questions: 0 });
    for (const row of await postgresAblation(dialogues, postgres.url)) rows.set(row.choice, row);
    const defaults = contenders.find(
      (contender) => contender.name === results.find((result) => result.recall)?.contender,
    );
    if (defaults) {
      for (const share of budgets) {
        const parts: RetentionResult[] = [];
        for (const dialogue of dialogues)
          parts.push(await runRetention(dialogue, defaults, share, counter, postgresStore(postgres.url)));
        postgresRecall.push(pool(parts));
      }
    }
  } finally {
    await postgres.stop();
  }
  return { results, postgresRecall, ablation: [...rows.values()], notes };
}

export function printRetention({ results, postgresRecall, ablation: choices, notes }: RetentionOutcome): void {
  printTable(
    "Retention on real conversations: evidence (and answer) held by one line of what the model receives, pooled over probe points (npm run bench:retention)",
    retentionRows(results),
  );
  printTable(
    `Recall: each question searched once (its text as the query) in the compacted thread after the last turn, top ${RECALL_AT} hits (searchHistory on the thread's store)`,
    [
      ...results.map((result) => ({ result, store: "SQLite FTS5" })),
      ...postgresRecall.map((result) => ({ result, store: "Postgres full-text" })),
    ]
      .filter(({ result }) => result.recall)
      .sort((a, b) => a.result.budgetShare - b.result.budgetShare)
      .flatMap(({ result, store }) => {
        // The first library contender (the defaults) also with the filters a model would pass (retention/recall.ts).
        const filtered = result.contender === results.find((first) => first.recall)?.contender && result.recallFiltered;
        return [
          { result, store, search: "the question", recall: result.recall! },
          ...(filtered ? [{ result, store, search: "+ speaker, month", recall: result.recallFiltered! }] : []),
        ];
      })
      .map(({ result, store, search, recall }) => ({
        budget: `${result.budgetShare * 100}%`,
        contender: result.contender,
        store,
        search,
        questions: recall.questions,
        "in context": pct(recall.context, recall.questions),
        "compacted away": recall.compactedAway,
        [`found: a top-${RECALL_AT} hit`]: pct(recall.foundAsHit, recall.compactedAway),
        [`found: a hit or a message it carries`]: pct(recall.foundWithNeighbours, recall.compactedAway),
        "in context or found": pct(recall.contextOrSearch, recall.questions),
        "search ms p50": median(recall.searchMs).toFixed(2),
      })),
  );
  printTable(
    `What each ranking choice buys: every turn of the conversations indexed, each question searched once, an evidence turn in the top ${RECALL_AT} (SQLite FTS5, then Postgres)`,
    choices.map((row) =>
      row.questions === 0
        ? { choice: "", "recall@5": "", questions: "" }
        : { choice: row.choice, "recall@5": pct(row.found, row.questions), questions: row.questions },
    ),
  );
  for (const note of notes) printNote(`- ${note}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      data: { type: "string" },
      budgets: { type: "string" },
      json: { type: "boolean", default: false },
      only: { type: "string" },
    },
  });
  const data = resolve(values.data ?? DEFAULT_DATA);
  if (!existsSync(data)) {
    // The conversations (LoCoMo, CC BY-NC) are not part of this repository: say where they are looked for, and stop.
    console.error(
      `bench:retention: no conversation file at ${data}. The data is not in this repository (docs/benchmarks.md says where it comes from); pass --data <file> in the LoCoMo schema.`,
    );
    process.exit(2);
  }
  const budgets = values.budgets ? values.budgets.split(",").map(Number) : DEFAULT_BUDGETS;
  const contenders = values.only
    ? RETENTION_CONTENDERS.filter((contender) => values.only!.split(",").some((part) => contender.name.includes(part)))
    : RETENTION_CONTENDERS;
  const outcome = await benchRetention({ data: values.data, budgets, contenders });
  // The calls priced by bench:cost are left out: one entry per model call of every run.
  if (values.json)
    console.log(JSON.stringify(outcome, (key, value: unknown) => (key === "pricedCalls" ? undefined : value), 2));
  else {
    const defaults = !values.data && !values.budgets && !values.only;
    await readmeBlock("retention", async () => printRetention(outcome), { write: defaults });
  }
}
