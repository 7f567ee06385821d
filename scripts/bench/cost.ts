/**
 * What a conversation costs with the provider's prompt cache (`npm run bench:cost`): each workload replayed through
 * each contender at the same budget (25% of the conversation), every model call's exact input recorded, split into
 * what the cache serves (an exact prefix of the previous call's input, engine/prompt-cache.ts) and what is new, and
 * priced under two sheets (cost/pricing.ts). The workloads:
 * - each retention conversation (real, with sessions days apart: a session's first call finds the cache cold), with
 *   the evidence its model calls held in the same run beside it (bench:retention's figure);
 * - the generated agent conversation of bench:peers (tool calls, parallel calls, handoffs; one session, a call a
 *   minute), with its retention of planted facts (bench:peers' figure).
 * Contenders: no compaction, a sliding window (trimMessages before each call), langchain's summarizationMiddleware
 * triggered at the budget keeping half of it and keeping 20 messages, and this library as wrapper and as middleware,
 * and its frontier of cost against retention as the trigger goes under the budget, for each form of the summary
 * (FRONTIER); on the retention conversations also a prototype of cache-aware
 * scheduling (COLD_START: a compaction at each session's first turn, where the cache is cold). The targets table adds the bound of any scheduling (the defaults' calls
 * priced as if no compaction broke the cache: cost/priced-call.ts) and each frontier read at the keep-20 middleware's
 * cost.
 * The summarizers are offline here (the library's extractive one; summarizationMiddleware over the same extractive
 * text as a chat model): their calls cost nothing. With OPENAI_API_KEY the library also runs with LlmSummarizer, and
 * the tokens its summaries' calls reported (`compactionHealth().summarizerTokens`) are priced on top. "No compaction" never passes a 128k window on the retention
 * conversations (its largest call is printed).
 * Run: npm run bench:cost [-- --data <file>] [-- --only <part,part>]: `--only` runs the contenders whose name holds one
 * of the parts (and no compaction, the reference), and writes no docs block.
 */
import "../../src/store/all-backends.js";
import { SystemMessage } from "@langchain/core/messages";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ExtractiveSummarizer } from "../../src/summarizers/extractive.js";
import { TokenCounter } from "../../src/tokens/token-counter.js";
import { generateConversation } from "../workload/conversation.js";
import { conversationMessages } from "../workload/conversation-messages.js";
import { PRICE_SHEETS, priceCalls, priceSummarizer, type PriceSheet, type PricedCall } from "./cost/pricing.js";
import type { SummarizerTokens } from "../../src/engine/summarizer-tokens.js";
import { pricedCall } from "./cost/priced-call.js";
import { BUDGET_SHARE, runContender } from "./peers.js";
import {
  CONTENDERS as PEER_CONTENDERS,
  libraryContender,
  SYSTEM_PROMPT,
  summarizationContender as peerSummarization,
  type Contender,
} from "./peers/contenders.js";
import { createPlayer } from "./peers/player.js";
import { DEFAULT_DATA, runRetention, sqliteStore } from "./retention.js";
import { loadDialogues } from "./retention/dataset.js";
import {
  coldStartContender,
  library,
  RETENTION_CONTENDERS,
  SUMMARY_LOG,
  summarizationContender,
  type RetentionContender,
} from "./retention/contenders.js";
import { printNote, printTable } from "./table.js";
import { readmeBlock } from "./readme-block.js";

const BUDGET = 0.25;
/** The agent workload: bench:peers' generated conversation of this many messages. */
const AGENT_MESSAGES = 2_000;
const KEEP_20 = "summarizationMiddleware (keep 20 messages)";
const RETENTION_NAMES = [
  "no compaction",
  "trimMessages (sliding window)",
  "summarizationMiddleware (same summarizer)",
  "this library (defaults, offline)",
  SUMMARY_LOG,
  "this library as createAgent middleware",
];
const PEER_NAMES = [
  "no compaction",
  "trimMessages (sliding window)",
  "summarizationMiddleware (same summarizer)",
  "this library (CompactingSupervisor)",
];
/** This library with the LLM summarizer: run only with OPENAI_API_KEY, its summaries' tokens priced too. */
const LLM_SUMMARIZER = "this library, LlmSummarizer (OPENAI_API_KEY)";
const LIBRARY = new Set(["this library (defaults, offline)", "this library (CompactingSupervisor)"]);
/**
 * The one way to spend less: the trigger under the budget (a compaction comes sooner and leaves a smaller head). Its
 * frontier for each form of the summary: the form's defaults (the trigger at the budget) and the trigger at these
 * shares of the budget. The targets table reads each frontier at the keep-20 middleware's cost.
 */
const TRIGGER_SHARES = [0.8, 0.6, 0.4] as const;
const FORMS = [
  {
    form: "running summary",
    defaults: LIBRARY,
    name: (share: number) => `this library, trigger ${share} of the budget`,
  },
  {
    form: "summary log",
    defaults: new Set([SUMMARY_LOG]),
    summaryLog: "append" as const,
    name: (share: number) => `this library, summaryLog "append", trigger ${share} of the budget`,
  },
];
const FRONTIER = FORMS.flatMap(({ name, summaryLog }) =>
  TRIGGER_SHARES.map((triggerShare) => ({
    name: name(triggerShare),
    triggerShare,
    ...(summaryLog ? { summaryLog } : {}),
  })),
);

/**
 * Cache-aware scheduling's prototype (retention/contenders.ts): a compaction at each turn that finds the cache cold,
 * when the thread holds `mark` of the limit or more (the low-water mark itself, or nearly the limit).
 */
const COLD_START = [
  { name: "prototype: compacting at a cold session start from 0.8", mark: 0.8 },
  { name: "prototype: compacting at a cold session start from 0.95", mark: 0.95 },
];

interface Run {
  workload: string;
  name: string;
  calls: PricedCall[];
  /** Evidence (retention) or planted facts (agent) held, as a share; undefined when nothing was scored. */
  held: number | undefined;
  maxInput: number;
  /** The summarizer's own tokens, when it reported them (LlmSummarizer): priced on top of the model's calls. */
  summarizer?: SummarizerTokens;
}

/** Everything `run` costs under `sheet`: its model calls, and its summarizer's own calls. */
function costOf(run: Run, sheet: PriceSheet): number {
  return priceCalls(run.calls, sheet).cost + priceSummarizer(run.summarizer, sheet);
}

/** Whether a contender named `name` runs: every one, or those `only` names a part of (and the reference). */
const chosen = (name: string, only: readonly string[] | undefined) =>
  !only || name === "no compaction" || only.some((part) => name.includes(part));

export async function benchCost({
  data = DEFAULT_DATA,
  only,
}: { data?: string; only?: readonly string[] } = {}): Promise<void> {
  const counter = new TokenCounter();
  const dir = mkdtempSync(join(tmpdir(), "compaction-cost-"));
  const runs: Run[] = [];
  try {
    const retentionContenders: RetentionContender[] = [
      ...RETENTION_CONTENDERS.filter(
        (contender) =>
          RETENTION_NAMES.includes(contender.name) || (contender.name === LLM_SUMMARIZER && !contender.skip?.()),
      ),
      summarizationContender(KEEP_20, () => ({ messages: 20 })),
      ...FRONTIER.map(({ name, ...variant }) =>
        library(name, (counter) => new ExtractiveSummarizer({ counter }), variant),
      ),
      ...COLD_START.map(({ name, mark }) => coldStartContender(name, mark)),
    ].filter((contender) => chosen(contender.name, only));
    for (const dialogue of loadDialogues(data)) {
      for (const contender of retentionContenders) {
        const result = await runRetention(dialogue, contender, BUDGET, counter, sqliteStore(dir));
        const held = result.tally.scored > 0 ? result.tally.evidence / result.tally.scored : undefined;
        runs.push({
          workload: dialogue.id,
          name: contender.name,
          calls: result.pricedCalls,
          held,
          maxInput: result.tokensMax,
          ...(result.summarizerTokens ? { summarizer: result.summarizerTokens } : {}),
        });
      }
    }
    runs.push(...(await agentRuns(counter, dir, only)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const sheet of PRICE_SHEETS) {
    const rows: Array<Record<string, string>> = [];
    const targets: Array<Record<string, string>> = [];
    const frontier: Array<Record<string, string>> = [];
    for (const workload of [...new Set(runs.map((run) => run.workload))]) {
      const of = (name: string) => runs.find((run) => run.workload === workload && run.name === name);
      const cost = (run: Run | undefined) => (run ? costOf(run, sheet) : Number.NaN);
      const reference = cost(of("no compaction"));
      for (const run of runs.filter((candidate) => candidate.workload === workload)) {
        const totals = priceCalls(run.calls, sheet);
        const total = costOf(run, sheet);
        rows.push({
          workload,
          contender: run.name,
          calls: String(totals.calls),
          "mean input/call": Math.round(totals.input / totals.calls).toLocaleString("en-US"),
          "cached share": `${((totals.cachedRead / totals.input) * 100).toFixed(1)}%`,
          "relative cost": (total / reference).toFixed(2),
          "cost per call": (total / totals.calls).toFixed(0),
          "cache-breaking rewrites": String(totals.rewrites),
          "tokens rewritten per rewrite": perRewrite(totals).toLocaleString("en-US"),
          "held (evidence / facts)": run.held === undefined ? "—" : `${(run.held * 100).toFixed(1)}%`,
          "summarizer tokens in / out":
            run.summarizer && run.summarizer.calls > 0
              ? `${run.summarizer.input.toLocaleString("en-US")} / ${run.summarizer.output.toLocaleString("en-US")}`
              : "0",
        });
      }
      const defaults = runs.find((run) => run.workload === workload && LIBRARY.has(run.name));
      const window = of("trimMessages (sliding window)");
      const keep20 = of(KEEP_20);
      // A run's cost against its bound: the same calls priced as if no compaction broke the cache (#60's target).
      const boundRatio = (run: Run | undefined, prices: typeof sheet) =>
        run
          ? (
              costOf(run, prices) /
              (priceCalls(run.calls, prices, { unbroken: true }).cost + priceSummarizer(run.summarizer, prices))
            ).toFixed(2)
          : "—";
      // A form's settings in the option's order: its defaults (the trigger at the budget), then TRIGGER_SHARES.
      const frontierOf = ({ defaults: names, name }: (typeof FORMS)[number]) => [
        runs.find((run) => run.workload === workload && names.has(run.name)),
        ...TRIGGER_SHARES.map((share) => of(name(share))),
      ];
      const costHeld = (run: Run | undefined) =>
        run
          ? `${fixed(cost(run) / reference)}, ${run.held === undefined ? "—" : `${(run.held * 100).toFixed(1)}%`}`
          : "—";
      [1, ...TRIGGER_SHARES].forEach((share, index) =>
        frontier.push({
          workload,
          trigger: `${share} of the budget${index === 0 ? " (the default)" : ""}`,
          ...Object.fromEntries(FORMS.map((form) => [`${form.form}: cost, held`, costHeld(frontierOf(form)[index])])),
        }),
      );
      for (const name of [KEEP_20, "trimMessages (sliding window)"])
        frontier.push({
          workload,
          trigger: name,
          ...Object.fromEntries(FORMS.map((form) => [`${form.form}: cost, held`, costHeld(of(name))])),
        });
      const heldRatio = (a: Run | undefined, b: Run | undefined) =>
        a?.held !== undefined && b?.held ? (a.held / b.held).toFixed(2) : "—";
      targets.push({
        workload,
        "library / summarizationMiddleware keep 20 (<= 1)": fixed(cost(defaults) / cost(keep20)),
        "library / sliding window (<= 0.2)": fixed(cost(defaults) / cost(window)),
        "held: library / window (>= 1.5)": heldRatio(defaults, window),
        "bound: library, no compaction breaking the cache / keep 20": defaults
          ? fixed(
              (priceCalls(defaults.calls, sheet, { unbroken: true }).cost +
                priceSummarizer(defaults.summarizer, sheet)) /
                cost(keep20),
            )
          : "—",
        ...Object.fromEntries(
          FORMS.map((form) => [
            `${form.form} at keep 20's cost: held / keep 20's (>= 1.5)`,
            atCost(frontierOf(form), cost, cost(keep20), keep20),
          ]),
        ),
        "log / running summary: tokens rewritten per rewrite (<= 0.5)":
          defaults && of(SUMMARY_LOG)
            ? fixed(
                perRewrite(priceCalls(of(SUMMARY_LOG)!.calls, sheet)) / perRewrite(priceCalls(defaults.calls, sheet)),
              )
            : "—",
        "defaults / their bound (<= 1.05)": boundRatio(defaults, sheet),
        "summary log / its bound (<= 1.05)": boundRatio(of(SUMMARY_LOG), sheet),
      });
    }
    printTable(
      `What a conversation costs at a ${BUDGET * 100}% budget, ${sheet.name}; cost relative to no compaction with caching, per workload`,
      rows,
    );
    printTable(
      `The one way to spend less, ${sheet.name}: the trigger under the budget, cost (no compaction = 1) and held for each form of the summary, beside the keep-20 middleware and the window (the same figures in both columns)`,
      frontier,
    );
    printTable(`The targets of this run, ${sheet.name}`, targets);
  }
  const largest = Math.max(
    ...runs
      .filter((run) => run.name === "no compaction" && run.workload !== agentWorkload())
      .map((run) => run.maxInput),
  );
  printNote(
    `No compaction's largest call on the retention conversations: ${largest.toLocaleString("en-US")} tokens (under a 128k window throughout).`,
  );
  printNote(
    `"summarizer tokens": what the summarizer's own calls read and wrote, priced into the cost (0 for the offline summarizers; the LlmSummarizer row runs with OPENAI_API_KEY${process.env.OPENAI_API_KEY ? "" : ", not set in this run"}).`,
  );
}

/**
 * A frontier's evidence (or facts) held at `target` cost, against `reference`'s: read off the line between the first
 * two neighbouring settings (in the option's order) whose costs bracket `target`; a dash where none do (the frontier
 * does not reach that cost) or a setting did not run.
 */
function atCost(
  points: ReadonlyArray<Run | undefined>,
  cost: (run: Run) => number,
  target: number,
  reference: Run | undefined,
): string {
  if (!reference?.held || points.some((run) => run?.held === undefined)) return "—";
  const line = (points as Run[]).map((run) => ({ cost: cost(run), held: run.held! }));
  for (let index = 1; index < line.length; index++) {
    const [a, b] = [line[index - 1]!, line[index]!];
    if (Math.min(a.cost, b.cost) > target || Math.max(a.cost, b.cost) < target) continue;
    const held = a.cost === b.cost ? a.held : a.held + ((b.held - a.held) * (target - a.cost)) / (b.cost - a.cost);
    return (held / reference.held).toFixed(2);
  }
  return "—";
}

/** The tokens a contender's cache-breaking calls wrote again, per such call (0 without any). */
const perRewrite = ({ rewrites, rewritten }: { rewrites: number; rewritten: number }) =>
  rewrites === 0 ? 0 : Math.round(rewritten / rewrites);

/** A ratio to two places, or a dash where a contender did not run (`--only`). */
const fixed = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : "—");

const agentWorkload = () => `agent-${AGENT_MESSAGES}`;

/** bench:peers' generated conversation through each contender, every call priced: one session, a call a minute. */
async function agentRuns(counter: TokenCounter, dir: string, only?: readonly string[]): Promise<Run[]> {
  const conversation = generateConversation({ seed: 11, messages: AGENT_MESSAGES });
  const total = counter.countMessages([new SystemMessage(SYSTEM_PROMPT), ...conversationMessages(conversation)]);
  const budget = Math.max(400, Math.floor(total * BUDGET_SHARE));
  const contenders: Contender[] = [
    ...PEER_CONTENDERS.filter((contender) => PEER_NAMES.includes(contender.name)),
    peerSummarization(KEEP_20, () => ({ messages: 20 })),
    libraryContender(SUMMARY_LOG, undefined, { summaryLog: "append" }),
    ...FRONTIER.map(({ name, ...variant }) => libraryContender(name, undefined, variant)),
  ].filter((contender) => chosen(contender.name, only));
  // The same tools on every call: the cache serves them first.
  const tools = createPlayer(conversation, counter).tools;
  const toolTokens = counter.countMessages([], { tools }) - counter.countMessages([]);
  const runs: Run[] = [];
  for (const contender of contenders) {
    const result = await runContender(contender, conversation, budget, counter, dir);
    const calls = result.calls.map((record, index): PricedCall => {
      const previous = result.calls[index - 1];
      return pricedCall(previous, record, {
        counter,
        output: record.output,
        gapMinutes: previous ? 1 : Number.POSITIVE_INFINITY,
        tools: { toolTokens, toolsKey: "peers" },
      });
    });
    runs.push({
      workload: agentWorkload(),
      name: contender.name,
      calls,
      held: Number.isNaN(result.retention) ? undefined : result.retention,
      maxInput: result.tokensMax,
    });
  }
  return runs;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { data: { type: "string" }, only: { type: "string" } } });
  const only = values.only?.split(",");
  await readmeBlock(
    "cost",
    () => benchCost({ ...(values.data ? { data: values.data } : {}), ...(only ? { only } : {}) }),
    {
      write: values.data === undefined && only === undefined,
    },
  );
}
